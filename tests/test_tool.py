from __future__ import annotations

import functools
from typing import Any, cast

import pydantic
import pytest

from agent._run_context import RunContext
from agent._tool import Tool, matches_tool_selector
from agent._tool_def import ToolDefinition
from agent.exceptions import ModelRetry, UserError
from agent.usage import RunUsage


def make_ctx(deps: Any = None, **changes: Any) -> RunContext[Any]:
    return RunContext(deps=deps, model=cast(Any, object()), usage=RunUsage(), **changes)


async def my_tool(ctx: RunContext[int], x: int, y: int) -> str:
    return f'{ctx.deps} {x} {y}'


async def prep_my_tool(ctx: RunContext[int], tool_def: ToolDefinition) -> ToolDefinition | None:
    # only register the tool if `deps == 42`
    if ctx.deps == 42:
        return tool_def
    return None


def only_if_42(ctx: RunContext[int], tool_def: ToolDefinition) -> ToolDefinition | None:
    if ctx.deps == 42:
        return tool_def
    return None


def hitchhiker(ctx: RunContext[int], answer: str) -> str:
    return f'{ctx.deps} {answer}'


def test_tool_infers_name_description_and_context_from_the_function():
    def add(a: int, b: int = 1) -> int:
        """Add two numbers."""
        return a + b

    tool = Tool(my_tool)
    plain = Tool(add)

    assert (tool.name, tool.takes_ctx, tool.description) == ('my_tool', True, None)
    assert (plain.name, plain.takes_ctx, plain.description) == ('add', False, 'Add two numbers.')
    assert tool.function_schema.json_schema['required'] == ['x', 'y']


async def test_tool_function_schema_calls_the_function_with_the_context():
    tool = Tool(my_tool)

    assert await tool.function_schema.call({'x': 1, 'y': 2}, make_ctx(deps=42)) == '42 1 2'


def test_explicit_name_and_description_override_the_inferred_ones():
    tool = Tool(my_tool, name='renamed', description='Custom.')

    assert (tool.name, tool.description, tool.tool_def.name) == ('renamed', 'Custom.', 'renamed')


def test_tool_without_a_name_needs_an_explicit_one():
    def greet(name: str) -> str:
        return name

    nameless = functools.partial(greet)

    with pytest.raises(UserError, match='name='):
        Tool(nameless)
    assert Tool(nameless, name='greet').name == 'greet'


def test_docstring_parameter_descriptions_land_in_the_schema():
    def search(query: str, limit: int = 10) -> list[str]:
        """Search the index.

        Args:
            query: What to look for.
            limit: How many results to return.
        """
        return []

    schema = Tool(search).tool_def.parameters_json_schema

    assert schema['properties']['query']['description'] == 'What to look for.'
    assert schema['properties']['limit']['description'] == 'How many results to return.'


def test_missing_parameter_description_is_an_error_when_required():
    def undocumented(x: int) -> int:
        """Does things."""
        return x

    with pytest.raises(UserError, match='x'):
        Tool(undocumented, require_parameter_descriptions=True)


def test_tool_def_carries_the_tool_settings():
    def fetch(url: str) -> dict[str, int]:
        """Fetch a page."""
        return {}

    tool = Tool(
        fetch,
        strict=True,
        sequential=True,
        metadata={'team': 'web'},
        timeout=2.5,
        defer_loading=True,
        include_return_schema=True,
    )

    tool_def = tool.tool_def
    assert tool_def.name == 'fetch'
    assert tool_def.description == 'Fetch a page.'
    assert tool_def.parameters_json_schema == tool.function_schema.json_schema
    assert (tool_def.strict, tool_def.sequential, tool_def.timeout, tool_def.defer_loading) == (True, True, 2.5, True)
    assert tool_def.metadata == {'team': 'web'}
    assert tool_def.include_return_schema is True
    assert tool_def.return_schema == tool.function_schema.return_schema
    assert tool_def.return_schema is not None
    assert tool_def.kind == 'function'


def test_return_schema_is_left_out_when_include_return_schema_is_false():
    def count() -> int:
        return 1

    assert Tool(count).tool_def.return_schema is not None
    assert Tool(count, include_return_schema=False).tool_def.return_schema is None


async def test_tool_without_prepare_is_always_offered():
    tool = Tool(my_tool)

    assert await tool.prepare_tool_def(make_ctx(deps=1)) == tool.tool_def


async def test_async_prepare_returning_none_omits_the_tool():
    tool = Tool(my_tool, prepare=prep_my_tool)

    assert await tool.prepare_tool_def(make_ctx(deps=42)) == tool.tool_def
    assert await tool.prepare_tool_def(make_ctx(deps=41)) is None


async def test_sync_prepare_function_is_supported():
    tool = Tool(hitchhiker, prepare=only_if_42)

    prepared = await tool.prepare_tool_def(make_ctx(deps=42))
    assert prepared is not None
    assert prepared.name == 'hitchhiker'
    assert await tool.prepare_tool_def(make_ctx(deps=7)) is None


async def test_prepare_can_change_the_definition():
    def describe(ctx: RunContext[int], tool_def: ToolDefinition) -> ToolDefinition:
        return ToolDefinition(name=tool_def.name, description=f'Answers for {ctx.deps}.')

    tool = Tool(hitchhiker, prepare=describe)

    prepared = await tool.prepare_tool_def(make_ctx(deps=42))
    assert prepared is not None
    assert prepared.description == 'Answers for 42.'


async def test_tool_requiring_approval_is_unapproved_until_the_call_is_approved():
    tool = Tool(my_tool, requires_approval=True)

    unapproved = await tool.prepare_tool_def(make_ctx())
    approved = await tool.prepare_tool_def(make_ctx(tool_call_approved=True))

    assert unapproved is not None
    assert approved is not None
    assert (unapproved.kind, unapproved.defer) == ('unapproved', True)
    assert (approved.kind, approved.defer) == ('function', False)


async def test_prepare_sees_the_unapproved_kind():
    seen: list[str] = []

    def record(ctx: RunContext[Any], tool_def: ToolDefinition) -> ToolDefinition:
        seen.append(tool_def.kind)
        return tool_def

    await Tool(my_tool, requires_approval=True, prepare=record).prepare_tool_def(make_ctx())

    assert seen == ['unapproved']


async def test_from_schema_skips_schema_validation_and_passes_keyword_arguments():
    calls: list[dict[str, Any]] = []

    def run(**kwargs: Any) -> str:
        calls.append(kwargs)
        return 'done'

    json_schema = {'type': 'object', 'properties': {'a': {'type': 'integer'}}, 'required': ['a']}
    tool = Tool.from_schema(run, name='run', description='Runs.', json_schema=json_schema)

    args = tool.function_schema.validate_json('{"a": "not an int", "extra": true}')
    result = await tool.function_schema.call(args, make_ctx())

    assert result == 'done'
    assert calls == [{'a': 'not an int', 'extra': True}]
    assert tool.tool_def.parameters_json_schema == json_schema
    assert (tool.name, tool.description, tool.takes_ctx, tool.sequential) == ('run', 'Runs.', False, False)


def test_from_schema_only_accepts_an_object_of_arguments():
    tool = Tool.from_schema(lambda **kwargs: None, name='noop', description=None, json_schema={'type': 'object'})

    with pytest.raises(pydantic.ValidationError, match='Input should be an object'):
        tool.function_schema.validate_json('[1, 2]')


async def test_from_schema_passes_the_context_first_when_asked():
    async def run(ctx: RunContext[str], **kwargs: Any) -> str:
        return f'{ctx.deps}: {kwargs}'

    tool = Tool.from_schema(run, 'run', None, {'type': 'object'}, takes_ctx=True, sequential=True)

    assert await tool.function_schema.call({'q': 1}, make_ctx(deps='me')) == "me: {'q': 1}"
    assert tool.tool_def.sequential is True


async def test_from_schema_still_runs_the_args_validator():
    def check(ctx: RunContext[Any], a: int) -> None:
        if a < 0:
            raise ModelRetry('a must not be negative')

    tool = Tool.from_schema(lambda a: a, 'echo', None, {'type': 'object'}, args_validator=check)

    await tool.validate_args(make_ctx(), {'a': 1})
    with pytest.raises(ModelRetry, match='negative'):
        await tool.validate_args(make_ctx(), {'a': -1})


async def test_args_validator_receives_the_context_and_validated_arguments():
    received: list[tuple[Any, int, int]] = []

    async def check(ctx: RunContext[int], x: int, y: int) -> None:
        received.append((ctx.deps, x, y))
        if x == y:
            raise ModelRetry('x and y must differ')

    tool = Tool(my_tool, args_validator=check)
    args = tool.function_schema.validate_python({'x': '1', 'y': 2})

    await tool.validate_args(make_ctx(deps=5), args)
    with pytest.raises(ModelRetry, match='differ'):
        await tool.validate_args(make_ctx(deps=5), {'x': 3, 'y': 3})
    assert received == [(5, 1, 2), (5, 3, 3)]


async def test_args_validator_of_a_plain_tool_also_gets_the_context():
    seen: list[Any] = []

    def add(a: int, b: int) -> int:
        return a + b

    def check(ctx: RunContext[str], a: int, b: int) -> None:
        seen.append((ctx.deps, a, b))

    await Tool(add, args_validator=check).validate_args(make_ctx(deps='d'), {'a': 1, 'b': 2})

    assert seen == [('d', 1, 2)]


async def test_validate_args_without_a_validator_does_nothing():
    await Tool(my_tool).validate_args(make_ctx(), {'x': 1, 'y': 1})


async def test_all_selector_matches_every_tool():
    assert await matches_tool_selector('all', make_ctx(), ToolDefinition(name='anything'))


async def test_name_selectors_match_listed_names_only():
    tool_def = ToolDefinition(name='search')

    assert await matches_tool_selector(['search', 'fetch'], make_ctx(), tool_def)
    assert not await matches_tool_selector(('fetch',), make_ctx(), tool_def)
    assert await matches_tool_selector(cast(Any, 'search'), make_ctx(), tool_def)
    assert not await matches_tool_selector(cast(Any, 'sea'), make_ctx(), tool_def)


async def test_metadata_selector_is_a_deep_inclusion_check():
    tool_def = ToolDefinition(
        name='t', metadata={'team': 'web', 'limits': {'rate': 5, 'burst': 10}, 'tags': ['a', 'b']}
    )

    assert await matches_tool_selector({'team': 'web'}, make_ctx(), tool_def)
    assert await matches_tool_selector({'limits': {'rate': 5}}, make_ctx(), tool_def)
    assert await matches_tool_selector({}, make_ctx(), tool_def)
    assert await matches_tool_selector({'tags': ['a', 'b']}, make_ctx(), tool_def)
    assert not await matches_tool_selector({'limits': {'rate': 6}}, make_ctx(), tool_def)
    assert not await matches_tool_selector({'team': {'name': 'web'}}, make_ctx(), tool_def)
    assert not await matches_tool_selector({'owner': 'web'}, make_ctx(), tool_def)
    assert not await matches_tool_selector({'team': 'web'}, make_ctx(), ToolDefinition(name='bare'))


async def test_callable_selectors_may_be_sync_or_async():
    def sync_selector(ctx: RunContext[Any], tool_def: ToolDefinition) -> bool:
        return tool_def.name.startswith(ctx.deps)

    async def async_selector(ctx: RunContext[Any], tool_def: ToolDefinition) -> bool:
        return tool_def.name.endswith(ctx.deps)

    ctx = make_ctx(deps='x')

    assert await matches_tool_selector(sync_selector, ctx, ToolDefinition(name='xy'))
    assert not await matches_tool_selector(sync_selector, ctx, ToolDefinition(name='yx'))
    assert await matches_tool_selector(async_selector, ctx, ToolDefinition(name='yx'))
    assert not await matches_tool_selector(async_selector, ctx, ToolDefinition(name='xy'))
