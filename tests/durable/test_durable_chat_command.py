"""`python -m doors.chat` and `agents chat`: one command serves the chat page over durable conversations, with its
own worker."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from temporalio.client import Client

from doors.chat import chat_workflow_id
from tests._processes import kill_group, started
from tests.ui.web._agents import chat_agent

from ._cli_helpers import AGENTS, user_env, write_project

pytestmark = pytest.mark.asyncio(loop_scope='session')

BOUND = 15.0  # the command starts a Python process that imports the project

assistant = chat_agent()


async def first_line(process: asyncio.subprocess.Process) -> str:
    """The command's first line of output (its address), or the test fails with what it wrote to stderr."""
    assert process.stdout is not None
    async with asyncio.timeout(BOUND):
        line = (await process.stdout.readline()).decode()
        if not line:
            assert process.stderr is not None
            pytest.fail(f'the command exited: {(await process.stderr.read()).decode()}')
    return line


@asynccontextmanager
async def serving(*args: str, **kwargs: Any) -> AsyncIterator[asyncio.subprocess.Process]:
    """The command `args` started, its output piped; on exit it is stopped with Ctrl-C (SIGINT).

    Killed with all it started if it has not stopped `BOUND` seconds later, which fails a test that had passed so far.
    """
    async with started(
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        **kwargs,
    ) as process:
        passed = False
        try:
            yield process
            passed = True
        finally:
            process.send_signal(signal.SIGINT)
            try:
                async with asyncio.timeout(BOUND):
                    await process.wait()
            except TimeoutError:
                kill_group(process.pid)
                assert process.stderr is not None
                err = (await asyncio.wait_for(process.stderr.read(), BOUND)).decode()
                if passed:
                    pytest.fail(f'the command did not stop on SIGINT: {err[-3000:]}')


async def test_the_command_serves_the_page_and_streams_a_durable_turn(client: Client, task_queue: str):
    async with serving(
        *[sys.executable, '-m', 'doors.chat', '--agents', f'{__name__}:assistant'],
        *['--address', client.service_client.config.target_host, '--task-queue', task_queue],
        *['--port', '0', '--token', 'command-token'],
    ) as process:
        line = await first_line(process)
        url = line.split(': ', 1)[1].strip()
        base = url.split('/#', 1)[0]
        message = {'id': 'u1', 'role': 'user', 'parts': [{'type': 'text', 'text': 'hi from the command'}]}
        body = {'id': f'cmd-{uuid.uuid4().hex[:8]}', 'trigger': 'submit-message', 'messages': [message]}
        headers = {'Authorization': 'Bearer command-token'}
        async with httpx2.AsyncClient(base_url=base, timeout=BOUND) as http:
            page = await http.get('/')
            refused = await http.get('/api/agents')
            answer = await http.post('/api/chat', json=body, headers=headers)

    assert line.startswith('Chat with assistant: http://127.0.0.1:')
    assert url.endswith('/#token=command-token')
    assert page.status_code == 200
    assert refused.status_code == 401
    chunks = [json.loads(row[6:]) for row in answer.text.splitlines() if row.startswith('data: {')]
    assert ''.join(c['delta'] for c in chunks if c['type'] == 'text-delta') == 'You said: hi from the command'


async def test_without_a_worker_the_command_prints_how_worker_processes_publish_to_it(client: Client, task_queue: str):
    address = client.service_client.config.target_host
    async with serving(
        *[sys.executable, '-m', 'doors.chat', '--agents', f'{__name__}:assistant', '--no-worker'],
        *['--address', address, '--task-queue', task_queue, '--port', '0', '--token', 'command-token'],
    ) as server:
        assert server.stdout is not None
        async with asyncio.timeout(BOUND):
            page_line = (await server.stdout.readline()).decode()
            events_line = (await server.stdout.readline()).decode()
        settings = dict(item.split('=', 1) for item in events_line.split(': ', 1)[1].split())
        async with serving(
            *[sys.executable, '-m', 'worker', '--agents', f'{__name__}:assistant'],
            *['--address', address, '--task-queue', task_queue],
            env={**os.environ, **settings},
        ) as worker:
            assert worker.stdout is not None
            # The page answers 503 while no worker polls the task queue: a person sends once the worker runs.
            async with asyncio.timeout(BOUND):
                ready = (await worker.stdout.readline()).decode()
            assert ready.startswith('Worker running'), ready
            base = page_line.split(': ', 1)[1].strip().split('/#', 1)[0]
            message = {'id': 'u1', 'role': 'user', 'parts': [{'type': 'text', 'text': 'hi from a worker process'}]}
            body = {'id': f'cmd-{uuid.uuid4().hex[:8]}', 'trigger': 'submit-message', 'messages': [message]}
            async with httpx2.AsyncClient(base_url=base, timeout=BOUND) as http:
                answer = await http.post('/api/chat', json=body, headers={'Authorization': 'Bearer command-token'})

    assert settings['AGENT_CHAT_EVENTS_URL'] == f'{base}/internal/turn-events'
    assert settings['AGENT_CHAT_EVENTS_TOKEN']
    assert answer.status_code == 200, answer.text
    chunks = [json.loads(row[6:]) for row in answer.text.splitlines() if row.startswith('data: {')]
    # The text comes only as live events: the turn's result ends the stream without repeating it.
    assert ''.join(c['delta'] for c in chunks if c['type'] == 'text-delta') == 'You said: hi from a worker process'


async def test_the_command_connects_to_the_server_its_environment_configuration_names(client: Client, task_queue: str):
    # No --address: TEMPORAL_ADDRESS says where the server is, as for every other command.
    env = {k: v for k, v in os.environ.items() if not k.startswith('TEMPORAL_')}
    env['TEMPORAL_ADDRESS'] = client.service_client.config.target_host
    conversation = f'env-{uuid.uuid4().hex[:8]}'
    async with serving(
        *[sys.executable, '-m', 'doors.chat', '--agents', f'{__name__}:assistant'],
        *['--task-queue', task_queue, '--port', '0', '--token', 'command-token'],
        env=env,
    ) as process:
        line = await first_line(process)
        base = line.split(': ', 1)[1].strip().split('/#', 1)[0]
        message = {'id': 'u1', 'role': 'user', 'parts': [{'type': 'text', 'text': 'where am I'}]}
        body = {'id': conversation, 'trigger': 'submit-message', 'messages': [message]}
        async with httpx2.AsyncClient(base_url=base, timeout=BOUND) as http:
            answer = await http.post('/api/chat', json=body, headers={'Authorization': 'Bearer command-token'})

    chunks = [json.loads(row[6:]) for row in answer.text.splitlines() if row.startswith('data: {')]
    assert ''.join(c['delta'] for c in chunks if c['type'] == 'text-delta') == 'You said: where am I'
    # The conversation is a workflow of the server the environment named.
    description = await client.get_workflow_handle(chat_workflow_id(conversation)).describe()
    assert description.task_queue == task_queue


async def test_the_command_answers_a_host_name_it_is_told_to_allow(client: Client, task_queue: str):
    # In a compose file the workers post to http://chat:8000: a name the DNS rebinding check refuses by default.
    async with serving(
        *[sys.executable, '-m', 'doors.chat', '--agents', f'{__name__}:assistant', '--no-worker'],
        *['--address', client.service_client.config.target_host, '--task-queue', task_queue, '--port', '0'],
        *['--allow-host', 'chat'],
    ) as process:
        line = await first_line(process)
        base = line.split(': ', 1)[1].strip().split('/#', 1)[0]
        port = base.rsplit(':', 1)[1]
        async with httpx2.AsyncClient(base_url=base, timeout=BOUND) as http:
            allowed = await http.get('/api/whoami', headers={'Host': f'chat:{port}'})
            refused = await http.get('/api/whoami', headers={'Host': f'elsewhere:{port}'})

    assert allowed.status_code == 200
    assert refused.status_code == 421


HELPER_MODULE = """\
from agent import Agent
from agent.models.test import TestModel

helper = Agent(TestModel(custom_output_text='glad to help'), name='helper')
"""


async def test_agents_chat_with_the_agents_flag_repeated_offers_and_serves_every_agent(
    client: Client, task_queue: str, tmp_path: Path
):
    folder = write_project(tmp_path)
    (folder / 'myapp' / 'other.py').write_text(HELPER_MODULE)
    async with serving(
        *[AGENTS, 'chat', '--agents', 'myapp.agents:support', '--agents', 'myapp.other:helper'],
        *['--task-queue', task_queue, '--port', '0', '--token', 'command-token'],
        cwd=folder,
        env=user_env(TEMPORAL_ADDRESS=client.service_client.config.target_host),
    ) as process:
        line = await first_line(process)
        base = line.split(': ', 1)[1].strip().split('/#', 1)[0]
        headers = {'Authorization': 'Bearer command-token'}
        message = {'id': 'u1', 'role': 'user', 'parts': [{'type': 'text', 'text': 'hi'}]}
        body = {'id': f'cmd-{uuid.uuid4().hex[:8]}', 'trigger': 'submit-message', 'messages': [message]}
        async with httpx2.AsyncClient(base_url=base, timeout=BOUND) as http:
            offered = await http.get('/api/agents', headers=headers)
            answer = await http.post('/api/chat', json={**body, 'agent': 'helper'}, headers=headers)

    # Before, the second flag replaced the first: the page offered only the helper.
    assert line.startswith('Chat with support, helper: http://127.0.0.1:')
    assert offered.json() == ['support', 'helper']
    chunks = [json.loads(row[6:]) for row in answer.text.splitlines() if row.startswith('data: {')]
    assert ''.join(c['delta'] for c in chunks if c['type'] == 'text-delta') == 'glad to help'
