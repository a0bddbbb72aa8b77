"""A worker killed with SIGKILL mid-tool: a new worker finishes the run, completed tools never run again."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
import uuid
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from tests._processes import started
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow

pytestmark = pytest.mark.asyncio(loop_scope='session')

ROOT = Path(__file__).parent.parent.parent


def start_worker(
    env: WorkflowEnvironment,
    task_queue: str,
    log: Path,
    *,
    stdout: int = asyncio.subprocess.DEVNULL,
    agent: str = 'crash_agent',
    agents: list[str] | None = None,
) -> AbstractAsyncContextManager[asyncio.subprocess.Process]:
    """`worker.py` serving `agent` of the crash agents (or the `agents` given, as `module:attribute`) on
    `task_queue`, its tools logging to `log`; killed on exit if still running."""
    return started(
        sys.executable,
        str(ROOT / 'worker.py'),
        '--agents',
        *(agents or [f'tests.durable.crash_agent:{agent}']),
        '--address',
        env.client.service_client.config.target_host,
        '--task-queue',
        task_queue,
        cwd=ROOT,
        env={**os.environ, 'CRASH_LOG': str(log), 'PYTHONPATH': str(ROOT)},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=stdout,
        stderr=asyncio.subprocess.DEVNULL,
    )


def has_line(log: Path, text: str) -> bool:
    return log.exists() and text in log.read_text()


async def wait_for_line(log: Path, text: str) -> None:
    for _ in range(300):  # bounded: another process writes the file, so there is no event to await
        if has_line(log, text):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f'{text!r} never appeared in {log}')


async def kill_mid_slow_step_and_restart(
    env: WorkflowEnvironment, client: Client, task_queue: str, log: Path, agent: str
) -> tuple[AgentRunOutput, float, WorkflowHandle[Any, Any]]:
    """Start a run, SIGKILL its worker inside `slow_step`, start another; the result, seconds from the new worker's
    start (the first worker's death) to the result, and the run's handle."""
    async with start_worker(env, task_queue, log, agent=agent) as first:
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='crash_agent', prompt='go'),
            id=f'crash-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        await wait_for_line(log, 'slow_step slow-1')
        first.send_signal(signal.SIGKILL)
        await first.wait()

    async with start_worker(env, task_queue, log, agent=agent):
        restarted = time.monotonic()
        result: AgentRunOutput = await asyncio.wait_for(handle.result(), 40)
    return result, time.monotonic() - restarted, handle


async def test_killed_worker_resumes_on_a_new_worker(
    temporal_env: WorkflowEnvironment, client: Client, task_queue: str, tmp_path: Path
) -> None:
    log = tmp_path / 'tools.log'
    result, recovery, handle = await kill_mid_slow_step_and_restart(
        temporal_env, client, task_queue, log, 'crash_agent'
    )

    assert result.output == 'quick done | slow done'
    # The completed tool never ran again; the interrupted one ran again with the same tool_call_id.
    assert log.read_text().splitlines() == ['quick_step quick-1', 'slow_step slow-1', 'slow_step slow-1']
    assert recovery < 15
    # The retried tool moved the run off the dead worker's sticky queue: no workflow task waited out its timeout.
    history = await handle.fetch_history()
    timed_out = [e for e in history.events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT]
    assert timed_out == []


async def test_sigterm_lets_the_running_tool_finish_before_the_worker_exits(
    temporal_env: WorkflowEnvironment, client: Client, task_queue: str, tmp_path: Path
) -> None:
    log = tmp_path / 'tools.log'
    async with start_worker(temporal_env, task_queue, log, stdout=asyncio.subprocess.PIPE) as first:
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='crash_agent', prompt='go'),
            id=f'sigterm-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        await wait_for_line(log, 'slow_step slow-1')
        first.send_signal(signal.SIGTERM)
        output, _ = await asyncio.wait_for(first.communicate(), 15)
    assert first.returncode == 0
    assert 'Stopping: finishing the calls in hand' in output.decode()
    assert 'Worker stopped' in output.decode()

    # The slow tool finished on the stopping worker; the next worker only makes the last model request.
    async with start_worker(temporal_env, task_queue, log):
        result: AgentRunOutput = await asyncio.wait_for(handle.result(), 30)
    assert result.output == 'quick done | slow done'
    assert log.read_text().splitlines() == ['quick_step quick-1', 'slow_step slow-1']


@pytest.mark.slow(17)
async def test_a_worker_killed_mid_local_activity_is_replaced_when_the_workflow_task_times_out(
    temporal_env: WorkflowEnvironment, client: Client, task_queue: str, tmp_path: Path
) -> None:
    log = tmp_path / 'tools.log'
    result, recovery, handle = await kill_mid_slow_step_and_restart(
        temporal_env, client, task_queue, log, 'crash_agent_local'
    )

    assert result.output == 'quick done | slow done'
    # Local activities are recorded when their workflow task completes: the dead worker's task never did, so the
    # new worker ran the whole loop again, from the first tool, once the task's 10-second timeout let it.
    assert log.read_text().splitlines() == ['quick_step quick-1', 'slow_step slow-1'] * 2
    assert 9 < recovery < 25
    history = await handle.fetch_history()
    timed_out = [e for e in history.events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT]
    assert len(timed_out) == 1
