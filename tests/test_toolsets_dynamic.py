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


async def test_for_run_step_builds_in_place_and_swaps_the_entered_toolset() -> None:
    events: list[str] = []
    produced = iter(['a', 'a', 'b'])
    built: dict[str, RecordingToolset] = {}

    def build(ctx: RunContext[Any]) -> RecordingToolset:
        name = next(produced)
        return built.setdefault(name, RecordingToolset(events, name))

    per_run = await DynamicToolset[Any](build).for_run(make_ctx())
    assert isinstance(per_run, DynamicToolset)
    assert per_run.toolset is None  # built per step: nothing until the first step

    async with per_run:
        assert await per_run.for_run_step(make_ctx(run_step=1)) is per_run
        await per_run.for_run_step(make_ctx(run_step=2))  # the same toolset again: kept as it is
        await per_run.for_run_step(make_ctx(run_step=3))
        assert per_run.toolset is built['b']

    assert events == ['enter a', 'exit a', 'enter b', 'exit b']


async def test_a_built_toolset_that_fails_to_enter_is_never_exited() -> None:
    events: list[str] = []

    class Refusing(RecordingToolset):
        async def __aenter__(self) -> RecordingToolset:
            raise RuntimeError('cannot connect')

    produced = iter([RecordingToolset(events, 'first'), Refusing(events, 'second')])
    dynamic = DynamicToolset[Any](lambda ctx: next(produced))

    async with dynamic:
        await dynamic.for_run_step(make_ctx(run_step=1))
        with pytest.raises(RuntimeError, match='cannot connect'):
            await dynamic.for_run_step(make_ctx(run_step=2))
        assert dynamic.toolset is None

    assert events == ['enter first', 'exit first']


async def test_a_toolset_built_once_per_run_is_built_by_for_run_and_entered_with_the_run() -> None:
    events: list[str] = []
    built: list[int] = []

    def build(ctx: RunContext[Any]) -> RecordingToolset:
        built.append(ctx.run_step)
        return RecordingToolset(events, 'once', [lambda: 'ok'])

    per_run = await DynamicToolset[Any](build, per_run_step=False).for_run(make_ctx(run_step=0))
    assert isinstance(per_run, DynamicToolset)
    assert built == [0]
    assert await per_run.get_instructions(make_ctx()) is None

    async with per_run:
        await per_run.for_run_step(make_ctx(run_step=1))
        assert list(await per_run.get_tools(make_ctx(run_step=2))) == ['<lambda>']

    assert built == [0]
    assert events == ['enter once', 'exit once']


async def test_instructions_wait_for_a_built_toolset_and_leaves_are_visited_inside_it() -> None:
    inner = FunctionToolset[Any](instructions='Use the inner tools.')
    dynamic = DynamicToolset[Any](lambda ctx: inner)

    assert await dynamic.get_instructions(make_ctx()) is None
    leaves: list[AbstractToolset[Any]] = []
    dynamic.apply(leaves.append)
    assert leaves == [dynamic]

    await dynamic.for_run_step(make_ctx(run_step=1))
    assert await dynamic.get_instructions(make_ctx(run_step=1)) is not None
    leaves.clear()
    dynamic.apply(leaves.append)
    assert leaves == [inner]

    replaced = dynamic.visit_and_replace(lambda leaf: leaf.prefixed('x'))
    assert isinstance(replaced, DynamicToolset)
    assert replaced == dynamic
    assert replaced is not dynamic
    assert list(await replaced.get_tools(make_ctx(run_step=1))) == []  # inner has no tools; replaced, not rebuilt
    assert replaced.toolset is not inner
