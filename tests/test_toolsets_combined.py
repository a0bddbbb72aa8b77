"""CombinedToolset: merging and routing tools, name conflicts, entering children, and walking the toolset tree."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent import Agent
from agent._run_context import RunContext
from agent.exceptions import UserError
from agent.toolsets import AbstractToolset, CombinedToolset, FunctionToolset, ToolsetTool, WrapperToolset

from ._toolset_helpers import LoggingToolset, RecordingToolset, call, make_ctx, math_toolset


async def test_combined_toolset_merges_tools_and_routes_calls():
    strings = FunctionToolset[Any]()

    @strings.tool_plain
    def upper(s: str) -> str:
        return s.upper()

    combined = CombinedToolset([math_toolset(), strings])

    tools = await combined.get_tools(make_ctx())

    assert list(tools) == ['add', 'neg', 'upper']
    assert tools['upper'].toolset is strings
    assert await combined.call_tool('upper', {'s': 'a'}, make_ctx(), tools['upper']) == 'A'
    assert await combined.call_tool('add', {'a': 1, 'b': 1}, make_ctx(), tools['add']) == 2


async def test_combined_toolset_routes_calls_before_listing_tools():
    combined = CombinedToolset([math_toolset()])
    tool = (await math_toolset().get_tools(make_ctx()))['neg']

    assert await combined.call_tool('neg', {'a': 3}, make_ctx(), tool) == -3
    with pytest.raises(UserError, match="Unknown tool 'nope'"):
        await combined.call_tool('nope', {}, make_ctx(), tool)


async def test_tool_name_conflict_names_both_toolsets_and_suggests_a_fix():
    combined = CombinedToolset([math_toolset(id='first'), math_toolset(id='second')])

    with pytest.raises(UserError) as exc_info:
        await combined.get_tools(make_ctx())

    assert str(exc_info.value) == (
        "FunctionToolset 'second' defines a tool whose name conflicts with existing tool from FunctionToolset "
        "'first': 'add'. Rename the tool or wrap the toolset in a `PrefixedToolset` to avoid name conflicts."
    )


async def test_a_clash_with_the_agents_own_tool_names_the_agent_and_the_wrapping_of_the_other_toolset():
    clashing = math_toolset(id='calc').prefixed('m')
    agent = Agent('test', toolsets=[clashing])

    @agent.tool_plain
    def m_add(a: int, b: int) -> int:
        return a + b

    with pytest.raises(UserError) as exc_info:
        await agent.run('go')
    assert str(exc_info.value) == (
        "PrefixedToolset(FunctionToolset 'calc') defines a tool whose name conflicts with existing tool from the "
        "agent: 'm_add'. Change the `prefix` attribute to avoid name conflicts."
    )


async def test_prefixing_resolves_a_name_conflict():
    combined = CombinedToolset([math_toolset(), math_toolset().prefixed('m')])

    assert list(await combined.get_tools(make_ctx())) == ['add', 'neg', 'm_add', 'm_neg']
    assert await call(combined, 'm_add', {'a': 1, 'b': 2}) == 3


async def test_combined_toolset_enters_children_once_even_when_entered_again():
    events: list[str] = []
    combined = CombinedToolset([RecordingToolset(events, 'a'), RecordingToolset(events, 'b')])

    async with combined:
        async with combined:
            events.append('body')
        events.append('inner exited')

    assert events == ['enter a', 'enter b', 'body', 'inner exited', 'exit b', 'exit a']


async def test_combined_toolset_can_be_entered_again_after_exit():
    events: list[str] = []
    combined = CombinedToolset([RecordingToolset(events, 'a')])

    async with combined:
        pass
    async with combined:
        pass

    assert events == ['enter a', 'exit a', 'enter a', 'exit a']


def test_apply_visits_the_leaf_toolsets():
    first, second, third = math_toolset(id='1'), math_toolset(id='2'), math_toolset(id='3')
    tree = CombinedToolset([first.prefixed('p'), CombinedToolset([second, third.filtered(lambda ctx, td: True)])])
    visited: list[AbstractToolset[Any]] = []

    tree.apply(visited.append)

    assert visited == [first, second, third]


async def test_visit_and_replace_rebuilds_the_tree_around_replaced_leaves():
    original = math_toolset(id='orig')
    replacement = FunctionToolset[Any](id='new')
    replacement.add_function(lambda: 'new', name='add')
    tree = CombinedToolset([LoggingToolset(wrapped=original.prefixed('x'))])

    rebuilt = tree.visit_and_replace(lambda leaf: replacement if leaf is original else leaf)

    assert isinstance(rebuilt, CombinedToolset)
    assert rebuilt is not tree
    assert list(await rebuilt.get_tools(make_ctx())) == ['x_add']
    assert list(await tree.get_tools(make_ctx())) == ['x_add', 'x_neg']
    assert await call(rebuilt, 'x_add', {}) == 'new'


class _Failing(WrapperToolset[Any]):
    def __init__(self, message: str) -> None:
        super().__init__(FunctionToolset[Any]())
        self.message = message

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        await asyncio.sleep(0)
        raise RuntimeError(self.message)


class _Slow(WrapperToolset[Any]):
    def __init__(self) -> None:
        super().__init__(FunctionToolset[Any]())
        self.started = asyncio.Event()
        self.cancelled = False

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        self.started.set()
        try:
            await asyncio.Event().wait()  # never set: only cancellation ends it
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        raise AssertionError('unreachable')


async def test_a_failing_member_cancels_the_others_listing_and_is_raised_as_it_is() -> None:
    slow = _Slow()

    with pytest.raises(RuntimeError, match=r'^server down$'):
        await CombinedToolset([slow, _Failing('server down')]).get_tools(make_ctx())

    assert slow.started.is_set()
    assert slow.cancelled


async def test_members_failing_together_raise_an_exception_group_in_member_order() -> None:
    combined = CombinedToolset([_Failing('first'), math_toolset(), _Failing('second')])

    with pytest.raises(ExceptionGroup) as raised:
        await combined.get_tools(make_ctx())

    assert [str(e) for e in raised.value.exceptions] == ['first', 'second']


async def test_each_run_gets_its_own_combination_of_the_same_members() -> None:
    members = [math_toolset(), FunctionToolset[Any]()]
    combined = CombinedToolset(members)

    per_run = await combined.for_run(make_ctx())

    assert per_run is not combined
    assert isinstance(per_run, CombinedToolset)
    assert list(per_run.toolsets) == members
