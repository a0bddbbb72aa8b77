"""DynamicToolset and as_toolset: toolsets built for each run step or each run."""

from __future__ import annotations

from typing import Any, cast

import pytest

from agent._run_context import RunContext
from agent.exceptions import UserError
from agent.toolsets import AbstractToolset, DynamicToolset, FunctionToolset, ToolsetTool, as_toolset

from ._toolset_helpers import RecordingToolset, call, make_ctx, math_toolset


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
