"""Answering a run's approvals when no worker serves it: bounded, said plainly, and the answer is never lost."""

from __future__ import annotations

import asyncio

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from agent import ToolDenied
from worker import build_worker
from workflows.client import AgentClient

from ._approvals import wait_for_approval
from ._cli_helpers import command
from .test_agent_workflow import AGENTS, tool_log

pytestmark = pytest.mark.asyncio(loop_scope='session')


async def _waiting_run(agents: AgentClient, client: Client) -> str:
    """A run of `approval_agent` that waits for its two approvals, its worker gone."""
    async with build_worker(client, AGENTS, task_queue=agents.task_queue):
        handle = await agents.start('approval_agent', 'clean up')
        await wait_for_approval(agents, handle.id)
    return handle.id


async def test_an_approval_no_worker_takes_is_recorded_and_applies_once_a_worker_is_up(
    temporal_env: WorkflowEnvironment, client: Client, task_queue: str
) -> None:
    tool_log.clear()
    agents = AgentClient(client, task_queue=task_queue)
    workflow_id = await _waiting_run(agents, client)
    address = client.service_client.config.target_host

    # Without the bound the command waited for a worker for ever; the time limit here fails the test instead.
    done = await command('approve', workflow_id, 'del-a', '--timeout', '1', address=address, task_queue=task_queue)
    assert done.code == 1, done
    assert done.out == ''
    lines = done.err.splitlines()
    assert len(lines) == 2, done.err
    assert lines[0] == (
        f'python -m doors.cli: No worker serves task queue {task_queue!r}: run {workflow_id!r} did not answer '
        'within 1 s.'
    )
    assert lines[1].startswith("The approval of del-a is recorded in the run's history and applies when a worker")
    assert f'`agents status {workflow_id}`' in lines[1]

    async with build_worker(client, AGENTS, task_queue=task_queue):
        pending = None
        for _ in range(200):  # the recorded approval applies once the worker takes the run (bounded: ~10 s)
            pending = await agents.pending(workflow_id)
            if pending is not None and [c.tool_call_id for c in pending.approvals] == ['del-b']:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f'the recorded approval never applied: {pending}')
        await agents.approve(workflow_id, approvals={'del-b': ToolDenied('Keep b')})
        result = await agents.result(workflow_id)
        status = await agents.status(workflow_id)
    assert result.output == 'delete_file=deleted a.txt; delete_file=Keep b'
    assert tool_log == [('delete_file', 'a.txt')]
    assert status.rejected == []  # the approval was sent once: by signal, no update left behind


async def test_the_client_gives_up_on_an_update_no_worker_accepts_within_the_time_given(
    client: Client, task_queue: str
) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    workflow_id = await _waiting_run(agents, client)
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(TimeoutError, match=rf"No worker accepted the results for run '{workflow_id}' within 0.5 s"):
        await asyncio.wait_for(agents.approve(workflow_id, approvals={'del-a': True}, accept_within=0.5), 30)
    assert loop.time() - started < 10
