"""`agent.tool_manager.ToolManager` used on its own: binding to run steps, counting retries, raw errors."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from agent.exceptions import ModelRetry, ToolRetriesExhausted, ToolRetryError, UserError
from agent.messages import ToolCallPart
from agent.tool_manager import ToolManager
from agent.toolsets import FunctionToolset

from ._toolset_helpers import make_ctx


def _flaky_toolset() -> tuple[FunctionToolset[Any], list[str]]:
    toolset = FunctionToolset[Any](max_retries=2)
    calls: list[str] = []

    @toolset.tool_plain
    def lookup(code: int) -> str:
        calls.append('lookup')
        raise ModelRetry(f'no entry for {code}')

    @toolset.tool_plain
    def double(x: int) -> int:
        calls.append('double')
        return x * 2

    @toolset.tool_plain(sequential=True)
    def write(x: int) -> int:
        return x

    return toolset, calls


async def test_an_unbound_manager_binds_to_a_step_and_stays_bound_within_it() -> None:
    toolset, _ = _flaky_toolset()
    unbound = ToolManager[Any](toolset)
    with pytest.raises(UserError, match='for_run_step'):
        unbound.ctx  # noqa: B018

    step_ctx = make_ctx(run_step=1)
    manager = await unbound.for_run_step(step_ctx)
    assert sorted(manager.tools) == ['double', 'lookup', 'write']
    assert manager.ctx is step_ctx
    assert step_ctx.tool_manager is manager
    assert await manager.for_run_step(make_ctx(run_step=1)) is manager
    assert await manager.for_run_step(make_ctx(run_step=2)) is not manager


async def test_failures_are_counted_once_per_step_and_carried_to_the_next_step() -> None:
    toolset, calls = _flaky_toolset()
    manager = await ToolManager[Any](toolset).for_run_step(make_ctx(run_step=1))

    for _ in range(2):
        with pytest.raises(ToolRetryError) as raised:
            await manager.handle_call(ToolCallPart('lookup', {'code': 7}))
        assert raised.value.tool_retry.content == 'no entry for 7'
    assert await manager.handle_call(ToolCallPart('double', {'x': 4})) == 8
    assert manager.failed_tools == {'lookup'}

    second = await manager.for_run_step(make_ctx(run_step=2))
    assert second.ctx.retries == {'lookup': 1}
    assert second.failed_tools == set()
    with pytest.raises(ToolRetryError):
        await second.handle_call(ToolCallPart('lookup', {'code': 7}))

    third = await second.for_run_step(make_ctx(run_step=3))
    with pytest.raises(ToolRetriesExhausted):
        await third.handle_call(ToolCallPart('lookup', {'code': 7}))
    assert calls == ['lookup', 'lookup', 'double', 'lookup', 'lookup']


async def test_unwrapped_calls_raise_the_original_error_and_count_no_retry() -> None:
    toolset, _ = _flaky_toolset()
    manager = await ToolManager[Any](toolset).for_run_step(make_ctx(run_step=1))

    with pytest.raises(ValidationError):
        await manager.handle_call(ToolCallPart('double', {'x': 'many'}), wrap_validation_errors=False)
    with pytest.raises(ModelRetry, match='no entry for 3'):
        await manager.handle_call(ToolCallPart('lookup', {'code': 3}), wrap_validation_errors=False)
    assert manager.failed_tools == set()
    assert manager.ctx.retries == {}


async def test_a_sequential_tool_makes_the_whole_batch_sequential() -> None:
    toolset, _ = _flaky_toolset()
    manager = await ToolManager[Any](toolset).for_run_step(make_ctx())
    assert manager.get_parallel_execution_mode([ToolCallPart('double', {'x': 1})]) == 'parallel'
    mixed = [ToolCallPart('double', {'x': 1}), ToolCallPart('write', {'x': 1})]
    assert manager.get_parallel_execution_mode(mixed) == 'sequential'
