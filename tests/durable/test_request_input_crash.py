"""A worker killed with SIGKILL while a run waits in `RequestInput`: a new worker takes the answer, and `ask` ran once.

The worker is a subprocess serving `tests.durable.waiting_agent:waiting_agent`, whose `ask` leaves a line per call
in a file, so the calls are counted across both worker processes and every replay of the run.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import uuid
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from tests._processes import started
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow
from workflows.client import AgentClient

from .test_crash_resume import wait_for_line

pytestmark = pytest.mark.asyncio(loop_scope='session')

ROOT = Path(__file__).parent.parent.parent
PATIENT = 40.0
"""Seconds a restarted worker may take to import, poll, replay the run and finish it on a busy machine (and, when the
dead worker held the run's workflow task, for that task to time out first: 10 s)."""
DELETED = "delete_file:success:File 'a.txt' deleted"


def worker(
    env: WorkflowEnvironment, task_queue: str, log: Path, ask_seconds: float = 0
) -> AbstractAsyncContextManager[asyncio.subprocess.Process]:
    """`worker.py` serving `waiting_agent` on `task_queue`, its `ask` logging to `log`; killed on exit."""
    return started(
        sys.executable,
        str(ROOT / 'worker.py'),
        '--agents',
        'tests.durable.waiting_agent:waiting_agent',
        '--address',
        env.client.service_client.config.target_host,
        '--task-queue',
        task_queue,
        cwd=ROOT,
        env={**os.environ, 'ASK_LOG': str(log), 'ASK_SECONDS': str(ask_seconds), 'PYTHONPATH': str(ROOT)},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )


async def recorded_asks(client: Client, workflow_id: str) -> int:
    """How many `ask` calls the run's history records (local activity markers)."""
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    return sum(
        event.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
        and event.marker_recorded_event_attributes.marker_name == 'core_local_activity'
        for event in history.events
    )


async def start(client: Client, task_queue: str) -> str:
    workflow_id = f'crash-wait-{uuid.uuid4()}'
    await client.start_workflow(
        AgentWorkflow.run,
        AgentRunInput(agent='waiting_agent', prompt='Delete a.txt'),
        id=workflow_id,
        task_queue=task_queue,
    )
    return workflow_id


async def test_a_worker_killed_while_a_run_waits_leaves_the_answer_to_the_next_and_ask_runs_once(
    temporal_env: WorkflowEnvironment, client: Client, task_queue: str, tmp_path: Path
) -> None:
    log = tmp_path / 'asked.log'
    agents = AgentClient(client, task_queue=task_queue)
    async with worker(temporal_env, task_queue, log) as first:
        workflow_id = await start(client, task_queue)
        await wait_for_line(log, 'ev1.')
        async with asyncio.timeout(PATIENT):  # the run waits once the workflow task that asked is recorded
            while True:
                if await recorded_asks(client, workflow_id):
                    break
                await asyncio.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        await first.wait()

    (token,) = log.read_text().split()
    async with worker(temporal_env, task_queue, log):
        # The new worker has never seen the run: it replays it (past `ask`) to check and apply the answer.
        await asyncio.wait_for(agents.resolve_token(token, {'approvals': {'del-1': True}}, caller='ops'), PATIENT)
        result: AgentRunOutput = await asyncio.wait_for(agents.result(workflow_id), PATIENT)

    assert result.output == DELETED
    assert log.read_text().split() == [token]  # asked once, across two workers and their replays
    assert await recorded_asks(client, workflow_id) == 1


async def test_an_answer_sent_before_the_killed_workers_ask_was_recorded_applies_once_the_run_gets_there(
    temporal_env: WorkflowEnvironment, client: Client, task_queue: str, tmp_path: Path
) -> None:
    log = tmp_path / 'asked.log'
    agents = AgentClient(client, task_queue=task_queue)
    async with worker(temporal_env, task_queue, log, ask_seconds=30) as first:
        workflow_id = await start(client, task_queue)
        await wait_for_line(log, 'ev1.')  # `ask` handed the token out, and is still running: nothing is recorded
        first.send_signal(signal.SIGKILL)
        await first.wait()

    (token,) = log.read_text().split()
    # The run has not reached its wait in any history yet: the signal, written at once, is held until it does.
    await agents.submit_token(token, {'approvals': {'del-1': True}}, caller='ops')
    async with worker(temporal_env, task_queue, log):
        result: AgentRunOutput = await asyncio.wait_for(agents.result(workflow_id), PATIENT)
        status = await agents.status(workflow_id)

    assert result.output == DELETED
    assert status.rejected == []
    assert log.read_text().split() == [token]  # the answer was in hand when the run got to the wait: not asked again
    assert await recorded_asks(client, workflow_id) == 0
