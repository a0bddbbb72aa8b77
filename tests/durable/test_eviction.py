"""Runs waiting for a person leave the worker's workflow cache, and finish by replay when the answer comes."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle

from agent import Agent, DeferredToolResults
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from worker import AgentWorker, build_replayer, build_worker
from workflows import AgentRunInput, AgentWorkflow, RunStatus
from workflows import _eviction as eviction

pytestmark = pytest.mark.asyncio(loop_scope='session')

runs_of_wire: list[str] = []


def _script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart('wire', {'amount': 5}, 'wire-1'), ToolCallPart('rate', {}, 'rate-1')])
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    returns = [str(part.content) for part in last.parts if isinstance(part, ToolReturnPart)]
    return ModelResponse(parts=[TextPart('; '.join(returns))])


payments = Agent(FunctionModel(_script), name='eviction_payments')


@payments.tool_plain(requires_approval=True)
def wire(amount: int) -> str:
    runs_of_wire.append('wire')
    return f'wired {amount}'


@payments.tool_plain
async def rate() -> str:
    return 'rate 1.1'


AGENTS = {'eviction_payments': payments}


def _cached(worker: AgentWorker, run_id: str) -> bool:
    # The SDK's own record of the runs in its cache (private; this test pins what `workflows._eviction` relies on).
    return run_id in worker._workflow_worker._running_workflows  # pyright: ignore[reportOptionalMemberAccess]


def _resetting(worker: AgentWorker) -> bool:
    # The stickiness resets the worker has sent and not seen answered (private, like `_cached`).
    evictions = worker._evictions
    return evictions is not None and bool(evictions._resets)


async def _until(condition: Any, what: str, within: float = 5) -> None:
    async with asyncio.timeout(within):
        while True:
            if condition():
                return
            await asyncio.sleep(0.02)
    raise AssertionError(what)


async def _start(client: Client, task_queue: str) -> WorkflowHandle[Any, Any]:
    return await client.start_workflow(
        AgentWorkflow.run,
        AgentRunInput(agent='eviction_payments', prompt='pay'),
        id=f'run-{uuid.uuid4()}',
        task_queue=task_queue,
    )


async def _state(handle: WorkflowHandle[Any, Any]) -> str:
    status: RunStatus = await handle.query(AgentWorkflow.status)
    return status.state


async def test_a_run_waiting_for_approval_leaves_the_cache_and_finishes_by_replay(
    client: Client, task_queue: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(eviction, 'QUERIED_STAY', 2.0)  # long enough for ten polls, short enough to wait out
    runs_of_wire.clear()
    worker = build_worker(client, AGENTS, task_queue=task_queue)
    async with worker:
        handle = await _start(client, task_queue)
        run_id = handle.result_run_id or ''
        await _until(lambda: worker.waiting_runs_evicted >= 1, 'the waiting run was never evicted')
        await _until(lambda: not _cached(worker, run_id), 'the waiting run stayed in the cache')

        # A query replays the run once; polled, it stays cached; left alone a while, it leaves the cache again.
        evicted = worker.waiting_runs_evicted
        for _ in range(10):
            assert await _state(handle) == 'awaiting_deferred_tools'
            assert _cached(worker, run_id)
        assert worker.waiting_runs_evicted == evicted
        await _until(lambda: not _cached(worker, run_id), 'the queried run stayed in the cache', within=20)
        assert worker.waiting_runs_evicted == evicted + 1

        evicted = worker.waiting_runs_evicted
        await handle.signal(AgentWorkflow.submit_deferred_tool_results, DeferredToolResults(approvals={'wire-1': True}))
        result = await asyncio.wait_for(handle.result(), 10)
        history = await handle.fetch_history()

    # Its replay passed the waiting point on the way to the approval without being evicted there again.
    assert worker.waiting_runs_evicted == evicted
    assert result.output == 'rate 1.1; wired 5'
    assert runs_of_wire == ['wire']
    failed = {EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED, EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT}
    assert [e.event_id for e in history.events if e.event_type in failed] == []
    replayed = await build_replayer(AGENTS).replay_workflow(history, raise_on_replay_failure=False)
    assert replayed.replay_failure is None


async def test_with_eviction_off_a_waiting_run_stays_cached(client: Client, task_queue: str) -> None:
    worker = build_worker(client, AGENTS, task_queue=task_queue, evict_waiting_runs=False)
    async with worker:
        handle = await _start(client, task_queue)
        async with asyncio.timeout(5):
            while True:
                if await _state(handle) == 'awaiting_deferred_tools':
                    break
                await asyncio.sleep(0.02)
        assert _cached(worker, handle.result_run_id or '')
        assert worker.waiting_runs_evicted == 0
        await handle.signal(AgentWorkflow.submit_deferred_tool_results, DeferredToolResults(approvals={'wire-1': True}))
        assert (await asyncio.wait_for(handle.result(), 10)).output == 'rate 1.1; wired 5'


async def test_a_running_run_is_not_evicted(client: Client, task_queue: str) -> None:
    plain = Agent(FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart('done')])), name='eviction_plain')
    worker = build_worker(client, {'eviction_plain': plain}, task_queue=task_queue)
    async with worker:
        result = await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='eviction_plain', prompt='hi'),
            id=f'run-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        assert result.output == 'done'
        assert worker.waiting_runs_evicted == 0


async def test_an_evicted_run_resumes_from_the_queue_every_worker_polls(client: Client, task_queue: str) -> None:
    from temporalio.api.enums.v1 import TaskQueueKind

    runs_of_wire.clear()
    first = build_worker(client, AGENTS, task_queue=task_queue)
    async with first:
        handle = await _start(client, task_queue)
        await _until(lambda: first.waiting_runs_evicted >= 1, 'the waiting run was never evicted')
        # The stickiness reset is sent after the eviction, off the workflow task's path: wait until it is answered.
        await _until(lambda: not _resetting(first), "the run's stickiness was never reset")
    # The worker that served the run is gone; another one takes the approval's workflow task straight away, from the
    # normal queue, instead of after the dead worker's sticky queue timed out.
    async with build_worker(client, AGENTS, task_queue=task_queue):
        await handle.signal(AgentWorkflow.submit_deferred_tool_results, DeferredToolResults(approvals={'wire-1': True}))
        result = await asyncio.wait_for(handle.result(), 10)
    assert result.output == 'rate 1.1; wired 5'
    history = await handle.fetch_history()
    signalled = next(
        e.event_id for e in history.events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
    )
    resumed = next(
        e
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED and e.event_id > signalled
    )
    assert resumed.workflow_task_scheduled_event_attributes.task_queue.kind == TaskQueueKind.TASK_QUEUE_KIND_NORMAL
    assert resumed.workflow_task_scheduled_event_attributes.task_queue.name == task_queue
    assert [e for e in history.events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT] == []
