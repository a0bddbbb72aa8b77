"""`python -m deploy.healthcheck`: a worker container is healthy while a worker of its host polls the task queue."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from temporalio.client import Client

from deploy.healthcheck import Unhealthy, check_worker, main
from doors.demo import demo_agent
from worker import build_worker

pytestmark = pytest.mark.asyncio(loop_scope='session')


async def _healthy_within(client: Client, task_queue: str, hostname: str, seconds: float = 5.0) -> str:
    """The check's line once it passes; the worker registers as a poller when its first polls reach the server."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        try:
            return await check_worker(client, task_queue, hostname=hostname)
        except Unhealthy:
            if asyncio.get_running_loop().time() > deadline:
                raise
        await asyncio.sleep(0.05)


async def test_worker_check_passes_while_a_worker_of_the_host_polls_the_task_queue(client: Client, task_queue: str):
    host = f'worker-{uuid.uuid4().hex[:8]}'
    async with build_worker(client, {'file_cleaner': demo_agent}, task_queue=task_queue, identity=f'1@{host}'):
        line = await _healthy_within(client, task_queue, host)
    assert line == f"A worker on {host} polls task queue '{task_queue}' in namespace 'default'"


async def test_worker_check_fails_when_only_other_hosts_poll(client: Client, task_queue: str):
    host = f'worker-{uuid.uuid4().hex[:8]}'
    async with build_worker(client, {'file_cleaner': demo_agent}, task_queue=task_queue, identity=f'1@{host}'):
        await _healthy_within(client, task_queue, host)
        with pytest.raises(Unhealthy, match=f"No worker on other-{host} polls the workflow task queue '{task_queue}'"):
            await check_worker(client, task_queue, hostname=f'other-{host}')


async def test_worker_check_fails_when_the_last_poll_is_too_old(client: Client, task_queue: str):
    host = f'worker-{uuid.uuid4().hex[:8]}'
    async with build_worker(client, {'file_cleaner': demo_agent}, task_queue=task_queue, identity=f'1@{host}'):
        await _healthy_within(client, task_queue, host)
        later = datetime.now(UTC) + timedelta(minutes=10)
        with pytest.raises(Unhealthy, match=r'last polled the workflow task queue .* s ago \(more than 150 s\)'):
            await check_worker(client, task_queue, hostname=host, now=later)


async def test_health_check_command_reports_a_task_queue_without_this_hosts_worker_in_one_line(
    client: Client, task_queue: str, capsys: pytest.CaptureFixture[str]
):
    address = client.service_client.config.target_host
    assert await asyncio.to_thread(main, ['--address', address, '--task-queue', task_queue]) == 1
    err = capsys.readouterr().err
    assert err.startswith('Unhealthy: No worker on ')
    assert f"polls the workflow task queue '{task_queue}'" in err
    assert err.count('\n') == 1


async def test_health_check_command_reports_an_unreachable_server_in_one_line(capsys: pytest.CaptureFixture[str]):
    assert await asyncio.to_thread(main, ['--address', '127.0.0.1:1']) == 1
    err = capsys.readouterr().err
    assert err.startswith('Unhealthy: Cannot reach Temporal: ')
    assert err.count('\n') == 1
