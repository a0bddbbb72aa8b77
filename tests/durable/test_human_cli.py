"""The command line for people: run, watch, see pending approvals, approve or deny, status and result."""

from __future__ import annotations

import asyncio
import sys
from asyncio.subprocess import Process
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from tests._processes import started
from worker import build_worker

from .test_agent_workflow import AGENTS, tool_log

pytestmark = pytest.mark.asyncio(loop_scope='session')

ROOT = Path(__file__).parent.parent.parent


def cli(env: WorkflowEnvironment, task_queue: str, *args: str) -> AbstractAsyncContextManager[Process]:
    """`python -m doors.cli ARGS...` against `env`, its output piped; killed on exit if still running."""
    return started(
        sys.executable, '-m', 'doors.cli',
        '--address', env.client.service_client.config.target_host,
        '--task-queue', task_queue,
        *args,
        cwd=ROOT, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip


async def output(process: Process) -> str:
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    return out.decode()


async def command(env: WorkflowEnvironment, task_queue: str, *args: str) -> str:
    """What `python -m doors.cli ARGS...` prints, once it has ended with status 0."""
    async with cli(env, task_queue, *args) as process:
        return await output(process)


@pytest.mark.slow(23)
async def test_run_watch_approve_and_deny_from_the_command_line(
    temporal_env: WorkflowEnvironment, client: Client, task_queue: str
) -> None:
    tool_log.clear()
    async with build_worker(client, AGENTS, task_queue=task_queue):
        async with cli(
            temporal_env, task_queue, 'run', 'approval_agent', 'clean up', '--watch', '--no-input', '--poll', '0.1'
        ) as watcher:
            assert watcher.stdout is not None
            workflow_id = (await asyncio.wait_for(watcher.stdout.readline(), 30)).decode().strip()
            lines: list[str] = []
            while not any('waits for approval' in line for line in lines):  # bounded by the readline timeout
                lines.append((await asyncio.wait_for(watcher.stdout.readline(), 30)).decode())
            assert any('tool call delete_file({"path": "a.txt"})  [del-a]' in line for line in lines)

            pending = await command(temporal_env, task_queue, 'pending', workflow_id)
            assert 'del-a' in pending
            assert 'del-b' in pending
            partly = await command(temporal_env, task_queue, 'deny', workflow_id, 'del-b', '--message', 'Keep b')
            assert 'Still pending' in partly
            assert 'del-a' in partly
            done = await command(temporal_env, task_queue, 'approve', workflow_id, 'del-a')
            assert done.strip() == 'Nothing else is pending.'

            rest = await output(watcher)
        status = await command(temporal_env, task_queue, 'status', workflow_id)
        result = await command(temporal_env, task_queue, 'result', workflow_id)
    assert '"delete_file=deleted a.txt; delete_file=Keep b"' in rest
    assert status.startswith('completed (step 2, 2 requests, 1 tool call)')
    assert result.strip() == '"delete_file=deleted a.txt; delete_file=Keep b"'
    assert tool_log == [('delete_file', 'a.txt')]
