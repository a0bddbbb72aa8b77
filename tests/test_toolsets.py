from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, cast

import pydantic
import pytest

from agent._run_context import RunContext
from agent._tool import Tool
from agent._tool_def import ToolDefinition
from agent.exceptions import ApprovalRequired, ModelRetry, UserError
from agent.toolsets import (
    AbstractToolset,
    ApprovalRequiredToolset,
    CombinedToolset,
    DynamicToolset,
    ExternalToolset,
    FilteredToolset,
    FunctionToolset,
    PrefixedToolset,
    PreparedToolset,
    RenamedToolset,
    ToolsetTool,
    WrapperToolset,
    as_toolset,
)
from agent.usage import RunUsage


def make_ctx(deps: Any = None, **changes: Any) -> RunContext[Any]:
    return RunContext(deps=deps, model=cast(Any, object()), usage=RunUsage(), **changes)


async def call(
    toolset: AbstractToolset[Any], name: str, args: dict[str, Any], ctx: RunContext[Any] | None = None
) -> Any:
    """Call a tool the way the run loop does: list the tools, then call through the tool's own toolset."""
    ctx = ctx or make_ctx()
    tool = (await toolset.get_tools(ctx))[name]
    return await tool.toolset.call_tool(name, args, replace(ctx, tool_name=name, tool_call_id='call-1'), tool)


def math_toolset(**options: Any) -> FunctionToolset[Any]:
    toolset = FunctionToolset[Any](**options)

    @toolset.tool_plain
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @toolset.tool_plain
    def neg(a: int) -> int:
        return -a

    return toolset


class RecordingToolset(FunctionToolset[Any]):
    """A function toolset that records when it is entered and exited."""

    def __init__(self, events: list[str], name: str, tools: list[Any] | None = None) -> None:
        super().__init__(tools or [], id=name)
        self.events = events

    async def __aenter__(self) -> RecordingToolset:
        self.events.append(f'enter {self.id}')
        return self

    async def __aexit__(self, *args: Any) -> None:
        self.events.append(f'exit {self.id}')


# FunctionToolset


async def test_function_toolset_decorators_register_tools_bare_and_with_options():
    toolset = FunctionToolset[int]()

    @toolset.tool
    def whoami(ctx: RunContext[int]) -> str:
        return f'deps={ctx.deps}'

    @toolset.tool(name='shout', retries=3, metadata={'loud': True})
    def make_loud(ctx: RunContext[int], text: str) -> str:
        return text.upper()

    @toolset.tool_plain(description='Echo it back.', timeout=1.5)
    async def echo(text: str) -> str:
        return text

    tools = await toolset.get_tools(make_ctx(deps=7))

    assert list(tools) == ['whoami', 'shout', 'echo']
    assert tools['shout'].max_retries == 3
    assert tools['shout'].tool_def.metadata == {'loud': True}
    assert (tools['echo'].tool_def.description, tools['echo'].tool_def.timeout) == ('Echo it back.', 1.5)
    assert await call(toolset, 'whoami', {}, make_ctx(deps=7)) == 'deps=7'
    assert await call(toolset, 'shout', {'text': 'hi'}) == 'HI'
    assert await call(toolset, 'echo', {'text': 'hi'}) == 'hi'


def test_tool_plain_rejects_a_function_that_takes_the_context():
    toolset = FunctionToolset[Any]()

    def needs_ctx(ctx: RunContext[Any], x: int) -> int:
        return x

    with pytest.raises(UserError, match='tool_plain'):
        toolset.tool_plain(needs_ctx)


async def test_function_toolset_accepts_tools_and_functions_at_construction():
    def double(x: int) -> int:
        return 2 * x

    async def hello(ctx: RunContext[str]) -> str:
        return f'hello {ctx.deps}'

    toolset = FunctionToolset[Any]([Tool(double, name='twice'), hello])

    assert set(toolset.tools) == {'twice', 'hello'}
    assert toolset.tools['hello'].takes_ctx is True
    assert await call(toolset, 'twice', {'x': 4}) == 8
    assert await call(toolset, 'hello', {}, make_ctx(deps='you')) == 'hello you'


def test_adding_a_tool_with_an_existing_name_is_an_error():
    toolset = math_toolset()

    with pytest.raises(UserError, match="'add'"):
        toolset.add_tool(Tool(lambda a, b: a, name='add'))


async def test_toolset_defaults_apply_where_the_tool_leaves_them_unset():
    def a(x: int) -> int:
        return x

    def b(x: int) -> int:
        return x

    own = Tool(b, max_retries=5, timeout=9.0, strict=False, metadata={'kind': 'own', 'extra': 1})
    toolset = FunctionToolset[Any](
        [a, own],
        max_retries=2,
        timeout=3.0,
        strict=True,
        sequential=True,
        requires_approval=True,
        metadata={'kind': 'toolset', 'team': 'core'},
        defer_loading=True,
    )

    tools = await toolset.get_tools(make_ctx())

    default_def, own_def = tools['a'].tool_def, tools['b'].tool_def
    assert (tools['a'].max_retries, default_def.timeout, default_def.strict) == (2, 3.0, True)
    assert (tools['b'].max_retries, own_def.timeout, own_def.strict) == (5, 9.0, False)
    assert default_def.metadata == {'kind': 'toolset', 'team': 'core'}
    assert own_def.metadata == {'kind': 'own', 'team': 'core', 'extra': 1}
    assert all(d.sequential and d.defer_loading and d.kind == 'unapproved' for d in (default_def, own_def))
    assert (own.max_retries, own.metadata) == (5, {'kind': 'own', 'extra': 1}), 'the given Tool is not changed'


def test_explicit_decorator_options_win_over_toolset_defaults():
    toolset = FunctionToolset[Any](sequential=True, docstring_format='google')

    @toolset.tool_plain(sequential=False, docstring_format='sphinx')
    def f(x: int) -> int:
        return x

    assert toolset.tools['f'].sequential is False
    assert toolset.tools['f'].docstring_format == 'sphinx'


async def test_prepare_gets_a_context_naming_the_tool_with_its_retries():
    seen: list[tuple[str | None, int, int]] = []

    def prepare(ctx: RunContext[Any], tool_def: ToolDefinition) -> ToolDefinition:
        seen.append((ctx.tool_name, ctx.retry, ctx.max_retries))
        return tool_def

    toolset = FunctionToolset[Any](max_retries=4)
    toolset.add_function(lambda x: x, name='echo', prepare=prepare)
    toolset.add_function(lambda x: x, name='other', prepare=prepare, retries=1)

    await toolset.get_tools(make_ctx(retries={'echo': 2}))

    assert seen == [('echo', 2, 4), ('other', 0, 1)]


async def test_prepare_returning_none_leaves_the_tool_out():
    def only_if_42(ctx: RunContext[int], tool_def: ToolDefinition) -> ToolDefinition | None:
        return tool_def if ctx.deps == 42 else None

    toolset = FunctionToolset[int]()
    toolset.add_function(lambda: 'yes', name='answer', prepare=only_if_42)

    assert list(await toolset.get_tools(make_ctx(deps=42))) == ['answer']
    assert await toolset.get_tools(make_ctx(deps=1)) == {}


async def test_prepare_may_not_rename_the_tool():
    def rename(ctx: RunContext[Any], tool_def: ToolDefinition) -> ToolDefinition:
        return replace(tool_def, name='other')

    toolset = FunctionToolset[Any]()
    toolset.add_function(lambda: 1, name='one', prepare=rename)

    with pytest.raises(UserError, match="tool 'one' renamed it to 'other'"):
        await toolset.get_tools(make_ctx())


async def test_toolset_tool_validates_arguments_with_the_function_schema():
    tools = await math_toolset().get_tools(make_ctx())
    add = tools['add']

    assert add.args_validator.validate_json('{"a": "1", "b": 2}') == {'a': 1, 'b': 2}
    assert add.args_validator.validate_python({'a': 1, 'b': 2}) == {'a': 1, 'b': 2}
    assert add.post_validator is None
    with pytest.raises(pydantic.ValidationError):
        add.args_validator.validate_json('{"a": "one", "b": 2}')


async def test_post_validator_runs_the_tools_args_validator():
    def positive(ctx: RunContext[Any], a: int) -> None:
        if a <= 0:
            raise ModelRetry('a must be positive')

    toolset = FunctionToolset[Any]()

    @toolset.tool_plain(args_validator=positive)
    def root(a: int) -> float:
        return a**0.5

    tool = (await toolset.get_tools(make_ctx()))['root']

    assert tool.post_validator is not None
    await tool.post_validator(make_ctx(), {'a': 4})
    with pytest.raises(ModelRetry, match='positive'):
        await tool.post_validator(make_ctx(), {'a': -4})


async def test_calling_an_unknown_function_tool_is_an_error():
    toolset = math_toolset()
    tool = (await toolset.get_tools(make_ctx()))['add']

    with pytest.raises(UserError, match="Unknown tool 'missing'"):
        await toolset.call_tool('missing', {}, make_ctx(), tool)


def test_toolset_id_and_label():
    assert FunctionToolset[Any](id='math').id == 'math'
    assert FunctionToolset[Any](id='math').label == "FunctionToolset 'math'"
    assert FunctionToolset[Any]().label == 'FunctionToolset'
    assert math_toolset().prefixed('m').id is None
    assert FunctionToolset[Any](id='x').prefixed('m').id == 'x'


# WrapperToolset


@dataclass
class LoggingToolset(WrapperToolset[Any]):
    async def call_tool(self, tool_name: str, tool_args: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        print(f' Calling tool: {tool_name}')
        return await super().call_tool(tool_name, tool_args, *args, **kwargs)


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


# CombinedToolset


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

    message = str(exc_info.value)
    assert "FunctionToolset 'second'" in message
    assert "FunctionToolset 'first'" in message
    assert "'add'" in message
    assert 'prefixed' in message


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


async def test_prepared_toolset_returning_none_offers_no_tools():
    def nothing(ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> None:
        return None

    assert await math_toolset().prepared(nothing).get_tools(make_ctx()) == {}


async def test_prepared_toolset_may_not_rename_or_add_tools():
    def rename(ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [replace(d, name=f'new_{d.name}') for d in tool_defs]

    with pytest.raises(UserError, match="'new_add'"):
        await math_toolset().prepared(rename).get_tools(make_ctx())


# Approval and external tools


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


async def test_external_toolset_offers_external_tools_that_accept_any_object():
    tool_def = ToolDefinition(name='pick_color', parameters_json_schema={'type': 'object', 'properties': {}})
    toolset = ExternalToolset[Any]([tool_def], id='frontend')

    tools = await toolset.get_tools(make_ctx())
    tool = tools['pick_color']

    assert (tool.tool_def.kind, tool.tool_def.defer) == ('external', True)
    assert tool_def.kind == 'function', 'the given definition is not changed'
    assert tool.args_validator.validate_json('{"anything": [1]}') == {'anything': [1]}
    assert tool.args_validator.validate_json('') == {}
    assert tool.args_validator.validate_python({'x': 1}) == {'x': 1}
    with pytest.raises(pydantic.ValidationError):
        tool.args_validator.validate_json('[1]')
    with pytest.raises(UserError, match='cannot be executed'):
        await toolset.call_tool('pick_color', {}, make_ctx(), tool)
    assert toolset.id == 'frontend'


# Dynamic toolsets


def counting_factory(built: list[int]) -> Any:
    def build(ctx: RunContext[Any]) -> FunctionToolset[Any]:
        built.append(ctx.run_step)
        toolset = FunctionToolset[Any]()
        toolset.add_function(lambda: ctx.run_step, name=f'step_{ctx.run_step}')
        return toolset

    return build


async def test_dynamic_toolset_is_rebuilt_for_each_run_step():
    built: list[int] = []
    toolset = DynamicToolset[Any](counting_factory(built))

    async with toolset:
        first = await toolset.get_tools(make_ctx(run_step=1))
        again = await toolset.get_tools(make_ctx(run_step=1))
        second = await toolset.get_tools(make_ctx(run_step=2))
        result = await call(toolset, 'step_2', {}, make_ctx(run_step=2))

    assert (list(first), list(again), list(second)) == (['step_1'], ['step_1'], ['step_2'])
    assert built == [1, 2]
    assert result == 2
    assert second['step_2'].toolset is toolset


async def test_dynamic_toolset_built_once_per_run_is_rebuilt_for_the_next_run():
    built: list[int] = []
    toolset = DynamicToolset[Any](counting_factory(built), per_run_step=False)

    async with toolset:
        await toolset.get_tools(make_ctx(run_step=1))
        assert list(await toolset.get_tools(make_ctx(run_step=2))) == ['step_1']
    async with toolset:
        assert list(await toolset.get_tools(make_ctx(run_step=1))) == ['step_1']

    assert built == [1, 1]


async def test_dynamic_toolset_enters_and_exits_the_toolsets_it_builds():
    events: list[str] = []

    async def build(ctx: RunContext[Any]) -> RecordingToolset:
        return RecordingToolset(events, f'step{ctx.run_step}')

    toolset = DynamicToolset[Any](build)

    async with toolset:
        await toolset.get_tools(make_ctx(run_step=1))
        await toolset.get_tools(make_ctx(run_step=2))
        events.append('ending')

    assert events == ['enter step1', 'exit step1', 'enter step2', 'ending', 'exit step2']
    assert toolset.toolset is None


async def test_dynamic_toolset_returning_none_offers_no_tools():
    toolset = DynamicToolset[Any](lambda ctx: None)

    assert await toolset.get_tools(make_ctx()) == {}
    with pytest.raises(UserError, match="Unknown tool 'x'"):
        await toolset.call_tool('x', {}, make_ctx(), cast(ToolsetTool[Any], None))


async def test_as_toolset_wraps_functions_and_keeps_toolsets():
    toolset = math_toolset()

    def build(ctx: RunContext[Any]) -> AbstractToolset[Any]:
        return toolset

    dynamic = as_toolset(build)

    assert as_toolset(toolset) is toolset
    assert isinstance(dynamic, DynamicToolset)
    assert dynamic.label == 'DynamicToolset(build)'
    assert await call(dynamic, 'add', {'a': 2, 'b': 5}) == 7


async def test_dynamic_toolset_copy_has_no_built_toolset():
    built: list[int] = []
    toolset = DynamicToolset[Any](counting_factory(built), per_run_step=False, id='dyn')
    await toolset.get_tools(make_ctx(run_step=1))

    fresh = toolset.copy()

    assert (fresh.id, fresh.per_run_step, fresh.toolset) == ('dyn', False, None)
    assert toolset.toolset is not None
