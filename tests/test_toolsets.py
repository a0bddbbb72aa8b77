"""FunctionToolset and ExternalToolset: registering tools, toolset defaults, prepare, argument validation and ids."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pydantic
import pytest

from agent._run_context import RunContext
from agent._tool import Tool
from agent._tool_def import ToolDefinition
from agent.exceptions import ModelRetry, UserError
from agent.toolsets import ExternalToolset, FunctionToolset

from ._toolset_helpers import call, make_ctx, math_toolset

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


async def test_tool_given_a_function_without_the_context_registers_it_plain_with_a_deprecation_warning():
    toolset = FunctionToolset[Any]()

    with pytest.warns(DeprecationWarning, match=r'without `RunContext` to `FunctionToolset\.tool\(\)`.*tool_plain'):

        @toolset.tool  # pyright: ignore[reportArgumentType]
        def double(x: int) -> int:
            return x * 2

    tools = await toolset.get_tools(make_ctx())
    assert tools['double'].tool_def.parameters_json_schema['required'] == ['x']
    assert await call(toolset, 'double', {'x': 4}) == 8


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


async def test_prepare_may_rename_the_tool_but_not_onto_another_tools_name():
    def rename(ctx: RunContext[Any], tool_def: ToolDefinition) -> ToolDefinition:
        return replace(tool_def, name='other')

    toolset = FunctionToolset[Any]()
    toolset.add_function(lambda: 1, name='one', prepare=rename)
    assert list(await toolset.get_tools(make_ctx())) == ['other']

    toolset.add_function(lambda: 2, name='other')
    with pytest.raises(UserError, match=r"^Tool name conflicts with previously renamed tool: 'other'\.$"):
        await toolset.get_tools(make_ctx())

    later = FunctionToolset[Any]()
    later.add_function(lambda: 2, name='other')
    later.add_function(lambda: 1, name='one', prepare=rename)
    with pytest.raises(UserError, match=r"^Renaming tool 'one' to 'other' conflicts with existing tool\.$"):
        await later.get_tools(make_ctx())


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


# ExternalToolset


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
