"""Shared pieces of the benchmark: the run context, history statistics, and bounded waits."""

from __future__ import annotations

import asyncio
import logging
import math
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from google.protobuf.message import Message
from temporalio.api.enums.v1 import EventType, TimeoutType
from temporalio.client import Client, WorkflowHandle, WorkflowHistory
from temporalio.service import RPCError, RPCStatusCode
from temporalio.testing import WorkflowEnvironment

from agent.usage import UsageLimits
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow, RunStatus

log = logging.getLogger('bench')
T = TypeVar('T')

ROOT = Path(__file__).resolve().parent.parent
NO_REQUEST_LIMIT = UsageLimits(request_limit=None)
SLOTS_DEFAULT = 0
"""Workflow task slots of the S5 worker (`--s5-slots`; 0 keeps the worker's default, the SDK's 100).

The line reports the setting and the workflow task failures and timeouts seen, so a setting that starves
activations past the SDK's 2 s deadlock detector shows up there.
"""


@dataclass
class Bench:
    """What every scenario gets: the dev server's client, the mode, and what earlier scenarios recorded."""

    env: WorkflowEnvironment
    """The dev server."""
    quick: bool
    """Fewer steps and runs (`--quick`)."""
    s5_slots: int = SLOTS_DEFAULT
    """Workflow task slots of the S5 worker (0: the SDK's default)."""
    s5_evict: bool = True
    """Whether the S5 worker drops waiting runs from its cache (`--s5-keep-waiting` turns it off)."""
    s5_runs: int | None = None
    """Runs S5 (and its floor) start: 1000, or 100 with `--quick`, unless `--s5-runs` says otherwise."""
    recorded: dict[str, WorkflowHistory] = field(default_factory=dict[str, WorkflowHistory])
    """Histories recorded by earlier scenarios for later ones (S2's 50-step run for S6)."""
    sandboxed: bool = True
    """Whether the runtime's workers (and S6's replayer) run workflows in Temporal's sandbox (`--unsandboxed`)."""
    scenarios: tuple[str, ...] = ()
    """The scenarios of this invocation, in order (S0 measures the floor of those among S1, S3, S5, S9 and S10)."""
    floor: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    """The floor's figures (S0) per scenario it was measured for, reported next to that scenario's."""

    @property
    def client(self) -> Client:
        return self.env.client

    @property
    def waiting_runs(self) -> int:
        """How many runs S5 and its floor start."""
        return self.s5_runs or (100 if self.quick else 1000)


# --- measuring ---------------------------------------------------------------------------------------------


def ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def p90(values: Sequence[float]) -> float:
    """Nearest-rank 90th percentile."""
    return nearest_rank(values, 0.9)


def p95(values: Sequence[float]) -> float:
    """Nearest-rank 95th percentile."""
    return nearest_rank(values, 0.95)


def nearest_rank(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile of `values` at `fraction` (0.9 for the 90th)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def rss_mb() -> float:
    """Resident memory of this process (VmRSS), in MB."""
    for line in Path('/proc/self/status').read_text().splitlines():
        if line.startswith('VmRSS:'):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError('VmRSS not found in /proc/self/status')


def _payload_sizes(message: Message) -> Iterator[int]:
    """The data size of every `Payload` inside a history event, wherever the event keeps it."""
    if message.DESCRIPTOR.full_name == 'temporal.api.common.v1.Payload':
        yield len(getattr(message, 'data', b''))
        return
    for descriptor, value in message.ListFields():
        if descriptor.message_type is None:
            continue
        if descriptor.message_type.GetOptions().map_entry:
            children: Iterable[Any] = value.values()
        elif descriptor.is_repeated:
            children = value
        else:
            children = [value]
        for child in children:
            if isinstance(child, Message):
                yield from _payload_sizes(child)


def _task_latencies(history: WorkflowHistory) -> tuple[list[float], list[float]]:
    """Workflow tasks' schedule-to-start (waiting for a worker) and start-to-complete (worker time), in ms."""
    times = {event.event_id: event.event_time.ToMicroseconds() for event in history.events}
    waits: list[float] = []
    work: list[float] = []
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
            scheduled = event.workflow_task_started_event_attributes.scheduled_event_id
            waits.append((times[event.event_id] - times[scheduled]) / 1000)
        elif event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
            started = event.workflow_task_completed_event_attributes.started_event_id
            work.append((times[event.event_id] - times[started]) / 1000)
    return waits, work


def history_stats(history: WorkflowHistory) -> dict[str, Any]:
    """Size and shape of one workflow run's history."""
    types = Counter(event.event_type for event in history.events)
    waits, work = _task_latencies(history)
    largest, largest_in = 0, ''
    for event in history.events:
        size = max(_payload_sizes(event), default=0)
        if size > largest:
            largest, largest_in = size, EventType.Name(event.event_type).removeprefix('EVENT_TYPE_').lower()
    return {
        'history_events': len(history.events),
        'history_json_bytes': len(history.to_json()),
        'history_proto_bytes': sum(event.ByteSize() for event in history.events),
        'largest_payload_bytes': largest,
        'largest_payload_in': largest_in,
        'activities_scheduled': types[EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED],
        'workflow_tasks': types[EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED],
        'workflow_task_failures': types[EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED],
        'workflow_task_timeouts': types[EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT],
        # Of those, tasks that waited out a sticky queue's schedule-to-start timeout (the rest ran out of time).
        'workflow_task_timeouts_waiting': sum(
            1
            for event in history.events
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT
            and event.workflow_task_timed_out_event_attributes.timeout_type
            == TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START
        ),
        'workflow_runs': 1 + types[EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW],
        'activity_retries': sum(
            1
            for event in history.events
            if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
            and event.activity_task_started_event_attributes.attempt > 1
        ),
        'workflow_task_schedule_to_start_median_ms': round(statistics.median(waits), 1) if waits else None,
        'workflow_task_start_to_complete_median_ms': round(statistics.median(work), 1) if work else None,
    }


# --- running -----------------------------------------------------------------------------------------------


def new_task_queue(scenario: str) -> str:
    return f'bench-{scenario.lower()}-{uuid.uuid4().hex[:8]}'


async def start(
    client: Client, task_queue: str, agent: str, prompt: str, **fields: Any
) -> WorkflowHandle[AgentWorkflow, AgentRunOutput]:
    return await client.start_workflow(
        AgentWorkflow.run,
        AgentRunInput(agent=agent, prompt=prompt, **fields),
        id=f'{task_queue}-{uuid.uuid4().hex[:12]}',
        task_queue=task_queue,
    )


async def finish(handle: WorkflowHandle[AgentWorkflow, AgentRunOutput], expected: str) -> AgentRunOutput:
    result = await handle.result()
    if result.output != expected:
        raise RuntimeError(f'Run {handle.id} returned {result.output!r}, expected {expected!r}')
    return result


async def run_durable(
    client: Client, task_queue: str, agent: str, prompt: str, expected: str, **fields: Any
) -> tuple[float, WorkflowHandle[AgentWorkflow, AgentRunOutput]]:
    """Start a run and wait for its result; returns the wall time and the handle."""
    started = time.perf_counter()
    handle = await start(client, task_queue, agent, prompt, **fields)
    await finish(handle, expected)
    return time.perf_counter() - started, handle


async def bounded(limit: int, jobs: Iterable[Callable[[], Awaitable[Any]]]) -> list[Any]:
    """Run `jobs` with at most `limit` in flight, keeping their order."""
    gate = asyncio.Semaphore(limit)

    async def one(job: Callable[[], Awaitable[Any]]) -> Any:
        async with gate:
            return await job()

    return await asyncio.gather(*(one(job) for job in jobs))


async def within(seconds: float, what: str, awaitable: Awaitable[T]) -> T:
    """Await with a bound, failing with a message that says what did not happen in time."""
    try:
        return await asyncio.wait_for(awaitable, seconds)
    except TimeoutError:
        raise TimeoutError(f'{what} took longer than {seconds:g} s') from None


TRANSIENT = {RPCStatusCode.CANCELLED, RPCStatusCode.UNAVAILABLE, RPCStatusCode.UNKNOWN}
"""RPC failures worth another try: under load the dev server's transport drops a call now and then."""


async def retrying(call: Callable[[], Awaitable[T]], attempts: int = 3) -> T:
    """`call()`, again after a transient RPC failure (for calls safe to repeat: results, histories, approvals)."""
    for attempt in range(attempts):
        try:
            return await call()
        except RPCError as exc:
            if exc.status not in TRANSIENT or attempt == attempts - 1:
                raise
            log.warning('Retrying after a transient RPC failure: %s', exc)
            await asyncio.sleep(0.2)
    raise AssertionError('unreachable')


async def current_state(handle: WorkflowHandle[Any, Any]) -> str | RPCError:
    """The run's state by the `status` query, or the query's error.

    Errors are expected while a workflow task is failing (the server retries it) and, under load, from the
    transport; the caller keeps polling within its bound.
    """
    try:
        status: RunStatus = await handle.query(AgentWorkflow.status)
    except RPCError as exc:
        return exc
    if status.state == 'failed':
        raise RuntimeError(f'Run {handle.id} failed')
    return status.state


async def wait_for_state(handle: WorkflowHandle[Any, Any], state: str, seconds: float = 30) -> None:
    """Poll the `status` query until the run is in `state`."""
    last: str | RPCError | None = None
    try:
        async with asyncio.timeout(seconds):
            while True:
                last = await current_state(handle)
                if last == state:
                    return
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise TimeoutError(f'Run {handle.id} not {state!r} after {seconds:g} s (last: {last!r})') from None


async def wait_for_count(client: Client, query: str, count: int, seconds: float) -> None:
    """Count the runs the visibility store finds with `query` until there are `count`.

    What an inbox does (`agents pending`): it costs the worker nothing, where a `status` query of a run that left the
    worker's cache while it waits replays that run.
    """
    deadline = time.monotonic() + seconds
    found = 0
    while (found := (await client.count_workflows(query)).count) < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f'{found} of {count} runs found by {query!r} after {seconds:g} s')
        await asyncio.sleep(0.2)


async def wait_for_all(handles: Sequence[WorkflowHandle[Any, Any]], state: str, seconds: float) -> None:
    """Sweep the runs not yet in `state` until none is left, gently: every query is a task for the worker."""
    pending = list(handles)
    deadline = time.monotonic() + seconds
    while pending:
        states = await bounded(20, [lambda h=h: current_state(h) for h in pending])
        errors = [s for s in states if isinstance(s, RPCError)]
        pending = [h for h, current in zip(pending, states, strict=True) if current != state]
        if pending and time.monotonic() > deadline:
            last = f'; last query error: {errors[-1]}' if errors else ''
            raise TimeoutError(f'{len(pending)} of {len(handles)} runs not {state!r} after {seconds:g} s{last}')
        if pending:
            await asyncio.sleep(0.5)


async def inprocess_wall(run: Callable[[], Awaitable[Any]], count: int, warmups: int = 2) -> list[float]:
    for _ in range(warmups):
        await run()
    times: list[float] = []
    for _ in range(count):
        started = time.perf_counter()
        await run()
        times.append(time.perf_counter() - started)
    return times


# --- scenarios ---------------------------------------------------------------------------------------------
