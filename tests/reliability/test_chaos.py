"""Chaos: 100 concurrent runs with approvals on two workers; one worker is SIGKILLed and the server restarted.

The dev server runs as a subprocess on a SQLite file, so the test can kill it and start it again on the same
database and port while worker B and the test's client keep running (both reconnect on their own: the SDK
retries failed calls and polls against the same address). Each run is scripted by
`tests.reliability.chaos_agent`; its deletion is approved or denied, by signal or by update, a fifth of them
only once the server is back. The tool bodies log `start` and `end` lines to one file, which shows that every
call ran to its end, that denied calls never ran, and that a call ran again only if worker A was running it
when it was killed (or had just finished it and could not report that any more: tool bodies run at least once).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.exceptions import TemporalError

from agent import DeferredToolResults, ToolDenied
from worker import connect
from workflows import ActivityOptions, AgentRunInput, AgentRunOutput, AgentWorkflow

from ._chaos_processes import DevServer, Line, ToolLog, kill, polling, spawn_worker
from .chaos_agent import expected_output

# The deadlines below bound waits on conditions; they are generous so that a busy machine only makes it slower.
pytestmark = [pytest.mark.asyncio(loop_scope='session'), pytest.mark.timeout(420)]

T = TypeVar('T')
Handle = WorkflowHandle[AgentWorkflow, AgentRunOutput]

RUNS = 100
HEARTBEAT_TIMEOUT = (ActivityOptions().heartbeat_timeout or timedelta()).total_seconds()
"""A tool body that ended longer than this before its worker was killed must not run again: a live worker reports
the result sooner, and a result not reported by then would be retried for a missing heartbeat, not for the kill."""


def denial(run: int) -> str | None:
    """The message a third of the runs get instead of an approval."""
    return f'keep run-{run}' if run % 3 == 0 else None


def by_update(run: int) -> bool:
    """Half the decisions go by the `resolve_deferred_tools` update, the others by signal."""
    return run % 2 == 1


def late(run: int) -> bool:
    """A fifth of the runs wait for their decision across the kill and the server's restart."""
    return run % 5 == 2


async def within(seconds: float, what: str, awaitable: Awaitable[T]) -> T:
    """`awaitable`'s result, or an `AssertionError` saying what did not happen in time."""
    try:
        return await asyncio.wait_for(awaitable, seconds)
    except TimeoutError:
        raise AssertionError(f'{what} did not happen within {seconds} s') from None


async def decide(handle: Handle, run: int) -> None:
    """Send the run's decision once its call is pending, and again after any failure until it no longer is.

    A call may fail while the server is down although the server recorded it; the `pending_deferred_tools`
    query (answered from the run's history) tells whether the run still waits.
    """
    call = f'delete-run-{run}'
    message = denial(run)
    results = DeferredToolResults(approvals={call: ToolDenied(message) if message is not None else True})
    seen = False
    while True:
        try:
            pending = await handle.query(AgentWorkflow.pending_deferred_tools)
            if pending is None or call not in pending.tool_call_ids:
                if seen:
                    return
                await asyncio.sleep(0.1)
                continue
            seen = True
            if by_update(run):
                await handle.execute_update(AgentWorkflow.resolve_deferred_tools, results)
            else:
                await handle.signal(AgentWorkflow.submit_deferred_tool_results, results)
        except TemporalError:  # the server is down, or the run's worker is gone: look again
            await asyncio.sleep(0.2)


async def unfinished(handles: list[Handle]) -> list[tuple[str, Any]]:
    """The runs that are not completed, with their status (for a failure message)."""
    found: list[tuple[str, Any]] = []
    for handle in handles:
        description = await handle.describe()
        if description.status != WorkflowExecutionStatus.COMPLETED:
            found.append((handle.id, description.status))
    return found


@dataclass
class Reruns:
    """The calls that started more than once, by what explains it."""

    by_kill: int = 0
    """Calls worker A was running (or had just ended) when it was killed."""
    by_outage: int = 0
    """Calls running (or just ended) while the server was down, whose report was lost."""
    unexplained: list[Line] = field(default_factory=list[Line])
    """The later starts of calls neither explains: each must be the server retrying the same activity."""


def check_reruns(lines: list[Line], first_pid: int) -> Reruns:
    """Sort every call that started more than once by what interrupted it: worker A's death, the server's outage,
    or neither.

    A call that worker B was running, or had just ended, while the server was down may run again too: its result
    could not be reported, and the restarted server retries the call once its heartbeat is missed. A call neither
    interrupted may still run again on a machine so busy that a live worker reported its result later than the
    heartbeat timeout; `check_server_retries` holds those to the history: the server retried the activity it had
    scheduled once, never a second activity for the same call.
    """
    marks = {line.call: line for line in lines if line.event == 'mark'}
    kill, down, up = marks['kill'], marks['server-down'], marks['server-up']
    by_call: dict[str, list[Line]] = {}
    for line in lines:
        if line.event != 'mark':
            by_call.setdefault(line.call, []).append(line)
    reruns = Reruns()
    for found in by_call.values():
        starts = [line for line in found if line.event == 'start']
        if len(starts) == 1:
            continue
        *interrupted, _ = starts
        for start in interrupted:
            ends = [
                line for line in found if line.event == 'end' and line.pid == start.pid and line.index > start.index
            ]
            ended = ends[0].time if ends else None
            # It ran on worker A and had started before A was killed, and had not ended, or ended so shortly
            # before that its result may not have been reported ...
            if start.pid == first_pid and start.index < marks['killed'].index:
                if ended is None or kill.time - ended < HEARTBEAT_TIMEOUT:
                    reruns.by_kill += 1
                    continue
            # ... or it ran while the server was down, or ended so shortly before that its report was lost.
            elif start.index < up.index and (ended is None or ended > down.time - HEARTBEAT_TIMEOUT):
                reruns.by_outage += 1
                continue
            reruns.unexplained.append(start)
    return reruns


async def check_server_retries(client: Client, task_queue: str, unexplained: list[Line], lines: list[Line]) -> None:
    """Each call in `unexplained` ran again only as a retry of its one scheduled activity (`attempt` > 1 in the
    history): a worker reporting late on a busy machine, never the workflow scheduling the call a second time."""
    for call in sorted({line.call for line in unexplained}):
        starts = [line for line in lines if line.call == call and line.event == 'start']
        run = starts[0].run.removeprefix('run-')
        history = await client.get_workflow_handle(f'chaos-{task_queue}-{run}').fetch_history()
        scheduled = {
            event.event_id
            for event in history.events
            if event.HasField('activity_task_scheduled_event_attributes')
            and event.activity_task_scheduled_event_attributes.activity_id.endswith(f'.tool.{call}')
        }
        assert len(scheduled) == 1, f'{call} was scheduled {len(scheduled)} times: {starts}'
        attempts = [
            event.activity_task_started_event_attributes.attempt
            for event in history.events
            if event.HasField('activity_task_started_event_attributes')
            and event.activity_task_started_event_attributes.scheduled_event_id in scheduled
        ]
        assert attempts, f'{call} has no started attempt in the history'
        assert attempts[-1] >= len(starts), f'{call} ran {len(starts)} times in {attempts} attempts'


@pytest.mark.slow(61)
async def test_runs_finish_right_when_a_worker_dies_and_the_server_restarts(tmp_path: Path) -> None:
    server = DevServer(tmp_path / 'temporal.db', tmp_path / 'server.out')
    log = ToolLog(tmp_path / 'tools.log')
    task_queue = f'chaos-{uuid.uuid4().hex[:8]}'
    workers: list[asyncio.subprocess.Process] = []
    tasks: list[asyncio.Future[Any]] = [asyncio.ensure_future(log.follow())]
    try:
        await server.start()
        outputs = [tmp_path / 'worker-a.out', tmp_path / 'worker-b.out']
        for output in outputs:
            workers.append(await spawn_worker(server.address, task_queue, log.path, output))
        await within(60, 'the workers polling', asyncio.gather(*map(polling, workers, outputs)))
        first = workers[0]
        client: Client = await connect(server.address)
        starts = [
            client.start_workflow(
                AgentWorkflow.run,
                AgentRunInput(agent='chaos_agent', prompt=f'run-{run}'),
                id=f'chaos-{task_queue}-{run}',
                task_queue=task_queue,
            )
            for run in range(RUNS)
        ]
        handles: list[Handle] = await within(60, 'starting the runs', asyncio.gather(*starts))
        restarted = asyncio.Event()
        undecided = set(range(RUNS))

        async def review(run: int) -> None:
            if late(run):
                await restarted.wait()
            await log.wait_for(lambda log: f'quick-run-{run}' in log.ended)
            await decide(handles[run], run)
            undecided.discard(run)

        reviews = asyncio.gather(*(review(run) for run in range(RUNS)))
        tasks.append(reviews)

        # Kill worker A while it runs slow steps, then restart the server once worker B has made progress alone.
        def slow_steps_on_first(log: ToolLog) -> int:
            started = {line.call for line in log.lines if line.event == 'start' and line.pid == first.pid}
            return len({call for call in started if call.startswith('slow-')} - log.ended)

        await within(90, 'worker A running 2 slow steps', log.wait_for(lambda log: slow_steps_on_first(log) >= 2))
        log.mark('kill')
        await kill(first)
        log.mark('killed')
        ended = len(log.ended)
        await within(90, 'worker B ending 20 calls', log.wait_for(lambda log: len(log.ended) >= ended + 20))
        log.mark('server-down')
        await server.kill()
        await server.start()
        log.mark('server-up')
        restarted.set()

        try:
            await asyncio.wait_for(reviews, 120)
            results = await asyncio.wait_for(asyncio.gather(*(handle.result() for handle in handles)), 120)
        except TimeoutError:
            stuck = await within(60, 'describing the runs', unfinished(handles))
            raise AssertionError(f'Runs did not finish: {stuck}; runs without a decision: {undecided}') from None
        # Every run has finished, so every tool line is written: the reruns neither the kill nor the outage
        # explains are held to the histories while the server is up.
        log.read()
        reruns = check_reruns(log.lines, first.pid)
        retried = check_server_retries(client, task_queue, reruns.unexplained, log.lines)
        await within(60, 'reading the histories', retried)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for process in workers:
            await kill(process)
        await server.kill()

    # Every run finished with its own answer, and that answer holds the decision it was sent.
    assert [result.output for result in results] == [expected_output(f'run-{run}', denial(run)) for run in range(RUNS)]

    log.read()
    tools = [line for line in log.lines if line.event != 'mark']
    # Every call the runs needed ran to its end; a denied deletion never ran.
    needed = {f'{step}-run-{run}' for run in range(RUNS) for step in ('quick', 'slow')}
    needed |= {f'delete-run-{run}' for run in range(RUNS) if denial(run) is None}
    assert {line.call for line in tools} == needed
    assert log.ended == needed
    # Worker A ran nothing once killed, and a call ran again only if the kill or the outage interrupted it.
    killed = next(line.index for line in log.lines if line.call == 'killed')
    assert [line for line in tools if line.pid == first.pid and line.index > killed] == []
    # At least the two slow steps it was running when it was killed.
    assert reruns.by_kill >= 2
