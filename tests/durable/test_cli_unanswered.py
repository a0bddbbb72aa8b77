"""A run whose workflow task fails on the worker is told with the failure, not as a run no worker serves.

The worker retries workflow-side errors (`workflow_side_errors='retry'`), so an agent whose instructions raise keeps
its run running, its workflow task failing, until the code is fixed; the worker is polling all along.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import uuid
from contextlib import AbstractAsyncContextManager
from datetime import timedelta
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle

from agent import Agent, RunContext
from agent.models.test import TestModel
from tests._processes import started
from worker import build_worker
from workflows import AgentRunOutput

from ._cli_helpers import REPO, command, user_env

pytestmark = pytest.mark.asyncio(loop_scope='session')

FAILING = (
    "The run's workflow task fails on the worker (it is retried until the code is fixed): "
    "AttributeError: 'NoneType' object has no attribute 'name'"
)

broken = True


def _greets_the_deps(ctx: RunContext[Any]) -> str:
    return f'Greet {ctx.deps.name}.' if broken else 'Be brief.'  # the deps were left out: AttributeError on None


def _agent() -> Agent[Any, str]:
    return Agent(TestModel(custom_output_text='done'), name='greeter', instructions=_greets_the_deps)


async def _start(client: Client, task_queue: str) -> WorkflowHandle[Any, AgentRunOutput]:
    # After the first failure the SDK reports no more: each later attempt ends when it times out, so a short task
    # timeout lets a fixed worker take the run within a moment.
    return await client.start_workflow(
        'AgentWorkflow',
        {'agent': 'greeter', 'prompt': 'hi'},
        id=f'greeter-{uuid.uuid4()}',
        task_queue=task_queue,
        result_type=AgentRunOutput,
        task_timeout=timedelta(seconds=1),
    )


def _watching(address: str, task_queue: str, *args: str) -> AbstractAsyncContextManager[asyncio.subprocess.Process]:
    """The `agents` command `args`, polling every 0.1 s, with its output piped for the test to read; killed on exit."""
    return started(
        sys.executable, '-m', 'doors.cli', '--address', address, '--task-queue', task_queue, *args,
        '--poll', '0.1',
        cwd=REPO, env=user_env(), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip


async def _task_failed(handle: WorkflowHandle[Any, Any]) -> None:
    """Wait (bounded) until the run's history has its first workflow task failure."""
    async with asyncio.timeout(10):
        while True:
            events = (await handle.fetch_history()).events
            if any(e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED for e in events):
                return
            await asyncio.sleep(0.05)


async def test_watch_says_the_workflow_task_fails_once_and_follows_the_run_once_the_code_is_fixed(
    client: Client, task_queue: str
) -> None:
    global broken
    broken = True
    address = client.service_client.config.target_host
    async with build_worker(client, {'greeter': _agent()}, task_queue=task_queue, workflow_side_errors='retry'):
        handle = await _start(client, task_queue)
        async with _watching(address, task_queue, 'watch', handle.id) as watcher:
            assert watcher.stderr is not None
            told = (await asyncio.wait_for(watcher.stderr.readline(), 30)).decode()
            assert told == FAILING + '\n'
            broken = False  # a worker with fixed code: the run goes on, and the watch follows it to its end
            out, err = await asyncio.wait_for(watcher.communicate(), 30)
    assert watcher.returncode == 0, err.decode()
    assert FAILING not in err.decode()  # said once, not at every poll while the task kept failing
    assert 'no worker' not in (told + err.decode()).lower()
    assert out.decode().endswith('"done"\n'), out.decode()


async def test_run_watch_says_the_workflow_task_fails_although_the_worker_polls(
    client: Client, task_queue: str
) -> None:
    global broken
    broken = True
    address = client.service_client.config.target_host
    async with build_worker(client, {'greeter': _agent()}, task_queue=task_queue, workflow_side_errors='retry'):
        async with _watching(address, task_queue, 'run', 'greeter', 'hi', '--watch') as watcher:
            assert watcher.stderr is not None
            told = (await asyncio.wait_for(watcher.stderr.readline(), 30)).decode()
            watcher.send_signal(signal.SIGINT)
            out, _ = await asyncio.wait_for(watcher.communicate(), 30)
        await client.get_workflow_handle(out.decode().split()[0]).terminate()
    assert told == FAILING + '\n'
    assert watcher.returncode == 130  # still watching when stopped: the run may recover


async def test_status_shows_the_failing_workflow_task_of_a_running_run(client: Client, task_queue: str) -> None:
    global broken
    broken = True
    address = client.service_client.config.target_host
    async with build_worker(client, {'greeter': _agent()}, task_queue=task_queue, workflow_side_errors='retry'):
        handle = await _start(client, task_queue)
        await _task_failed(handle)
        done = await command('status', handle.id, address=address, task_queue=task_queue)
        await handle.terminate()
    assert done.code == 0, done
    assert done.out.splitlines() == [
        'running (its workflow task is retried until the code is fixed)',
        "  error: workflow task failing: AttributeError: 'NoneType' object has no attribute 'name'",
    ]
