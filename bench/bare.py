"""S0: the floor. A bare Temporal workflow with S1's six activities and no agent runtime.

The workflow makes the calls S1's scripted run makes, in the same order and shape: a model request, `lookup`, a
model request, `fetch_a` and `fetch_b` in parallel, a final model request. The tools return the same
`DEFAULT_PAYLOAD` bytes of prose; the model requests return a short string. It runs on a plain `Worker` with the
SDK's default data converter and sandbox, so anything S1 spends beyond it is the runtime's. Every scenario that
reports against the floor runs it in the same invocation, on the same dev server (see `bench.run`).

`BareSteps` is S6's floor: as many sequential activities as a long run of S2 has (a model request and a tool call
per step, and the final model request), each returning S2's 5000 bytes, replayed with the SDK's defaults.

`BareFanOut` is S9's floor: a model request, as many tool activities as S9's response asks for, at most as many at
once as the runtime runs (each starting as one ends, in order), each returning `DEFAULT_PAYLOAD` bytes, and a final
model request.

`BareDelegation` is S10's floor: a parent workflow with no activity that runs `BareWorkflow` (S1's floor) as its
child and returns the child's result.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import deque
from datetime import timedelta
from typing import Any

from temporalio import activity, workflow
from temporalio.client import Client, WorkflowHandle
from temporalio.converter import DataConverter
from temporalio.worker import Worker

with workflow.unsafe.imports_passed_through():
    from .agents import DEFAULT_PAYLOAD, LONG_PAYLOAD, TOOL_NAMES, _body

__all__ = (
    'BARE_OUTPUT',
    'BareDelegation',
    'BareFanOut',
    'BareSteps',
    'BareWorkflow',
    'bare_activities',
    'bare_client',
    'bare_fan_out_call',
    'bare_step',
    'bare_worker',
    'finish_bare',
    'run_bare',
    'start_bare',
    'wait_bare',
)

BARE_OUTPUT = 'done after 3 tool calls'
"""What a bare run returns (the same text as S1's)."""

_TIMEOUT = timedelta(seconds=30)


def bare_activities(payload: int = DEFAULT_PAYLOAD) -> list[Any]:
    """S1's six activities without the runtime: three tools returning `payload` bytes each, and a model."""
    bodies = {tool: _body(tool, payload) for tool in TOOL_NAMES}

    @activity.defn(name='bare.model')
    async def model(step: int) -> str:
        return BARE_OUTPUT if step == 2 else f'call tools {step}'

    @activity.defn(name='bare.lookup')
    async def lookup(key: str) -> str:
        return bodies['lookup']

    @activity.defn(name='bare.fetch_a')
    async def fetch_a() -> str:
        return bodies['fetch_a']

    @activity.defn(name='bare.fetch_b')
    async def fetch_b() -> str:
        return bodies['fetch_b']

    return [model, lookup, fetch_a, fetch_b]


@workflow.defn(name='BareWorkflow')
class BareWorkflow:
    """Model, `lookup`, model, `fetch_a` + `fetch_b`, model: S1's activities with nothing around them.

    With `approval`, it waits for the `approve` signal before `lookup`, as S3's run waits for its approval.
    """

    def __init__(self) -> None:
        self._waiting = False
        self._approved = False

    @workflow.run
    async def run(self, approval: bool) -> str:
        await workflow.execute_activity('bare.model', 0, start_to_close_timeout=_TIMEOUT)
        if approval:
            self._waiting = True
            await workflow.wait_condition(lambda: self._approved)
            self._waiting = False
        await workflow.execute_activity('bare.lookup', 'answer', start_to_close_timeout=_TIMEOUT)
        await workflow.execute_activity('bare.model', 1, start_to_close_timeout=_TIMEOUT)
        await asyncio.gather(
            workflow.execute_activity('bare.fetch_a', start_to_close_timeout=_TIMEOUT),
            workflow.execute_activity('bare.fetch_b', start_to_close_timeout=_TIMEOUT),
        )
        return await workflow.execute_activity('bare.model', 2, start_to_close_timeout=_TIMEOUT)

    @workflow.signal
    def approve(self) -> None:
        self._approved = True

    @workflow.query
    def waiting(self) -> bool:
        return self._waiting


@activity.defn(name='bare.step')
async def bare_step(step: int) -> str:
    """One step of `BareSteps`: returns `LONG_PAYLOAD` bytes, as S2's tools do."""
    return _body('step', LONG_PAYLOAD)


@workflow.defn(name='BareSteps')
class BareSteps:
    """`activities` sequential activities: the shape of an S2 run of `(activities - 1) / 2` steps, for S6's floor."""

    @workflow.run
    async def run(self, activities: int) -> int:
        for step in range(activities):
            await workflow.execute_activity('bare.step', step, start_to_close_timeout=_TIMEOUT)
        return activities


@activity.defn(name='bare.fan_out_call')
async def bare_fan_out_call(index: int) -> str:
    """One call of `BareFanOut`: returns `DEFAULT_PAYLOAD` bytes, as S9's tool does."""
    return _FAN_OUT_BODY


_FAN_OUT_BODY = _body('fan_out', DEFAULT_PAYLOAD)


@workflow.defn(name='BareFanOut')
class BareFanOut:
    """A model request, `calls` tool activities with at most `in_flight` running at once, a final model request."""

    @workflow.run
    async def run(self, calls: int, in_flight: int) -> int:
        await workflow.execute_activity('bare.model', 0, start_to_close_timeout=_TIMEOUT)
        waiting = deque(range(calls))

        async def lane() -> None:
            while waiting:
                await workflow.execute_activity('bare.fan_out_call', waiting.popleft(), start_to_close_timeout=_TIMEOUT)

        await asyncio.gather(*(lane() for _ in range(min(in_flight, calls))))
        await workflow.execute_activity('bare.model', 2, start_to_close_timeout=_TIMEOUT)
        return calls


@workflow.defn(name='BareDelegation')
class BareDelegation:
    """A parent with no activity: it runs `BareWorkflow` as its child (its id plus `.child`) and returns its result."""

    @workflow.run
    async def run(self) -> str:
        return await workflow.execute_child_workflow(BareWorkflow.run, False, id=f'{workflow.info().workflow_id}.child')


def bare_client(client: Client) -> Client:
    """`client` with the SDK's default data converter (plain JSON payloads, nothing compressed)."""
    return Client(**{**client.config(), 'data_converter': DataConverter.default})


def bare_worker(client: Client, task_queue: str, **options: Any) -> Worker:
    """A plain worker for `BareWorkflow` (SDK defaults; `options` as for `Worker`)."""
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[BareWorkflow, BareSteps, BareFanOut, BareDelegation],
        activities=[*bare_activities(), bare_step, bare_fan_out_call],
        **options,
    )


async def start_bare(client: Client, task_queue: str, *, approval: bool = False) -> WorkflowHandle[Any, str]:
    """Start a bare run (waiting for `approve` before `lookup` with `approval`)."""
    return await client.start_workflow(
        BareWorkflow.run, approval, id=f'{task_queue}-{uuid.uuid4().hex[:12]}', task_queue=task_queue
    )


async def finish_bare(handle: WorkflowHandle[Any, str]) -> None:
    result = await handle.result()
    if result != BARE_OUTPUT:
        raise RuntimeError(f'Bare run {handle.id} returned {result!r}')


async def run_bare(client: Client, task_queue: str) -> tuple[float, WorkflowHandle[Any, str]]:
    """Start a bare run and wait for its result; returns the wall time and the handle."""
    started = time.perf_counter()
    handle = await start_bare(client, task_queue)
    await finish_bare(handle)
    return time.perf_counter() - started, handle


async def wait_bare(handle: WorkflowHandle[Any, str], seconds: float = 30) -> None:
    """Poll the `waiting` query until the run waits for its approval."""
    async with asyncio.timeout(seconds):
        while True:  # another process (the server) holds the state: there is no event to await
            if await handle.query(BareWorkflow.waiting):
                return
            await asyncio.sleep(0.02)
