"""Wrapper toolsets: custom wrappers, prefixing, renaming, filtering, preparing and requiring approval."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from agent._run_context import RunContext
from agent._tool_def import ToolDefinition
from agent._warnings import PydanticAIDeprecationWarning
from agent.exceptions import ApprovalRequired, UserError
from agent.toolsets import (
    ApprovalRequiredToolset,
    CombinedToolset,
    FilteredToolset,
    FunctionToolset,
    PrefixedToolset,
    PreparedToolset,
    RenamedToolset,
)

from ._toolset_helpers import LoggingToolset, RecordingToolset, call, make_ctx, math_toolset

# WrapperToolset


async def test_wrapper_subclass_intercepts_calls_and_delegates_through_super(capsys: pytest.CaptureFixture[str]):
    toolset = LoggingToolset(wrapped=math_toolset())

    tools = await toolset.get_tools(make_ctx())
    result = await call(toolset, 'add', {'a': 2, 'b': 3})

    assert all(tool.toolset is toolset for tool in tools.values())
    assert result == 5
    assert capsys.readouterr().out == ' Calling tool: add\n'


async def test_wrapper_calls_pass_through_a_combined_toolset(capsys: pytest.CaptureFixture[str]):
    other = FunctionToolset[Any]()
    other.add_function(lambda: 'pong', name='ping')
    toolset = LoggingToolset(wrapped=CombinedToolset([math_toolset(), other]))

    assert await call(toolset, 'ping', {}) == 'pong'
    assert await call(toolset, 'neg', {'a': 1}) == -1
    assert capsys.readouterr().out == ' Calling tool: ping\n Calling tool: neg\n'


async def test_wrapper_enters_and_exits_the_wrapped_toolset():
    events: list[str] = []

    async with LoggingToolset(wrapped=RecordingToolset(events, 'inner')):
        events.append('body')

    assert events == ['enter inner', 'body', 'exit inner']


# Prefixed, renamed, filtered, prepared


async def test_prefixed_toolset_prefixes_names_and_strips_them_on_call():
    toolset = PrefixedToolset(math_toolset(), 'calc')

    tools = await toolset.get_tools(make_ctx())

    assert list(tools) == ['calc_add', 'calc_neg']
    assert tools['calc_add'].tool_def.name == 'calc_add'
    assert tools['calc_add'].tool_def.description == 'Add two numbers.'
    assert await call(toolset, 'calc_neg', {'a': 5}) == -5
    with pytest.raises(UserError, match='prefix'):
        await toolset.call_tool('add', {}, make_ctx(), tools['calc_add'])


async def test_renamed_toolset_renames_listed_tools_only():
    toolset = RenamedToolset(math_toolset(), {'plus': 'add'})

    tools = await toolset.get_tools(make_ctx())

    assert list(tools) == ['plus', 'neg']
    assert tools['plus'].tool_def.name == 'plus'
    assert await call(toolset, 'plus', {'a': 1, 'b': 2}) == 3
    assert await call(toolset, 'neg', {'a': 1}) == -1


async def test_renamed_toolset_can_swap_names():
    toolset = math_toolset().renamed({'add': 'neg', 'neg': 'add'})

    assert await call(toolset, 'neg', {'a': 1, 'b': 2}) == 3
    assert await call(toolset, 'add', {'a': 1}) == -1


async def test_renaming_onto_an_existing_tool_name_is_an_error():
    toolset = math_toolset().renamed({'neg': 'add'})

    with pytest.raises(UserError, match="'neg'"):
        await toolset.get_tools(make_ctx())


async def test_filtered_toolset_accepts_sync_and_async_filters():
    def sync_filter(ctx: RunContext[Any], tool_def: ToolDefinition) -> bool:
        return tool_def.name == 'add'

    async def async_filter(ctx: RunContext[Any], tool_def: ToolDefinition) -> bool:
        return tool_def.name == ctx.deps

    assert list(await FilteredToolset(math_toolset(), sync_filter).get_tools(make_ctx())) == ['add']
    assert list(await math_toolset().filtered(async_filter).get_tools(make_ctx(deps='neg'))) == ['neg']
    assert await call(math_toolset().filtered(sync_filter), 'add', {'a': 1, 'b': 1}) == 2


async def test_prepared_toolset_can_modify_and_drop_definitions():
    async def strict_adds_only(ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [replace(d, strict=True) for d in tool_defs if d.name == 'add']

    toolset = PreparedToolset(math_toolset(), strict_adds_only)

    tools = await toolset.get_tools(make_ctx())

    assert list(tools) == ['add']
    assert tools['add'].tool_def.strict is True
    assert await call(toolset, 'add', {'a': 2, 'b': 2}) == 4


async def test_prepared_toolset_returning_none_offers_no_tools_with_a_deprecation_warning():
    def nothing(ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> None:
        return None

    with pytest.warns(PydanticAIDeprecationWarning, match=r"'.*nothing' returned `None`.*Return `\[\]`"):
        assert await math_toolset().prepared(nothing).get_tools(make_ctx()) == {}


async def test_prepared_toolset_may_not_rename_or_add_tools():
    def rename(ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [replace(d, name=f'new_{d.name}') for d in tool_defs]

    with pytest.raises(UserError, match=r"Prepare function cannot add or rename tools\..*'new_add'"):
        await math_toolset().prepared(rename).get_tools(make_ctx())


# Approval


async def test_approval_required_toolset_defers_calls_until_approved():
    toolset = ApprovalRequiredToolset(math_toolset())

    with pytest.raises(ApprovalRequired):
        await call(toolset, 'add', {'a': 1, 'b': 2})
    assert await call(toolset, 'add', {'a': 1, 'b': 2}, make_ctx(tool_call_approved=True)) == 3


async def test_approval_required_func_decides_per_call():
    def big_numbers_only(ctx: RunContext[Any], tool_def: ToolDefinition, args: dict[str, Any]) -> bool:
        return tool_def.name == 'add' and args['a'] > 100

    toolset = math_toolset().approval_required(big_numbers_only)

    assert await call(toolset, 'add', {'a': 1, 'b': 2}) == 3
    assert await call(toolset, 'neg', {'a': 500}) == -500
    with pytest.raises(ApprovalRequired):
        await call(toolset, 'add', {'a': 101, 'b': 2})
