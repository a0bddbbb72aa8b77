"""`agents run` and `agents status` tell a person at once what went wrong with a run, in a line or two."""

from __future__ import annotations

import pytest
from temporalio.client import Client, WorkflowFailureError

from worker import build_worker
from workflows.client import AgentClient

from ._approvals import wait_for_approval
from ._cli_helpers import Done, command
from .test_agent_workflow import AGENTS

pytestmark = pytest.mark.asyncio(loop_scope='session')

PROG = 'python -m doors.cli: '


def one_line(done: Done) -> str:
    """The one line of a command that failed with exit status 1, without the command's name."""
    assert done.code == 1, done
    assert len(done.err.splitlines()) == 1, done.err
    assert done.err.startswith(PROG), done.err
    return done.err.removeprefix(PROG).strip()


async def test_a_workflow_id_already_running_is_told_in_one_line_with_how_to_see_it(
    client: Client, task_queue: str
) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    address = client.service_client.config.target_host
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await agents.start('approval_agent', 'clean up', workflow_id=f'taken-{task_queue}')
        await wait_for_approval(agents, handle.id)
        done = await command(
            'run', 'approval_agent', 'again', '--workflow-id', handle.id, address=address, task_queue=task_queue
        )
    line = one_line(done)
    assert f'A run with workflow id {handle.id!r} is already running' in line
    assert f'`agents status {handle.id}`' in line
    assert done.out == ''


async def test_a_run_that_fails_at_once_fails_the_run_command(client: Client, task_queue: str) -> None:
    address = client.service_client.config.target_host
    async with build_worker(client, AGENTS, task_queue=task_queue):
        unknown = await command('run', 'nobody', 'hi', '--workflow-id', f'nobody-{task_queue}',
                                address=address, task_queue=task_queue)  # fmt: skip
        bad_input = await command(
            'run', 'approval_agent', 'hi', '--input', '{"usage_limits": {"request_limit": "many"}}',
            address=address, task_queue=task_queue,
        )  # fmt: skip
        fine = await command('run', 'approval_agent', 'hi', address=address, task_queue=task_queue)
    line = one_line(unknown)
    assert line.startswith(f"The run 'nobody-{task_queue}' failed: "), line
    assert "No agent is registered as 'nobody'" in line
    assert unknown.out == ''
    assert 'request_limit' in one_line(bad_input)
    assert fine.code == 0, fine
    assert fine.out.startswith('agent-approval_agent-')
    assert fine.err == ''


async def test_status_says_why_a_run_failed(client: Client, task_queue: str) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    address = client.service_client.config.target_host
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await agents.start('nobody', 'hi')
        with pytest.raises(WorkflowFailureError):
            await handle.result()
        done = await command('status', handle.id, address=address, task_queue=task_queue)
    assert done.code == 0, done
    lines = done.out.splitlines()
    assert lines[0].startswith('failed (step 0, 0 requests, 0 tool calls)'), done.out
    assert lines[1].startswith('  error: ')
    assert "No agent is registered as 'nobody'" in lines[1]
