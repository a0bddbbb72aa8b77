"""`OpenAIChatModel` over real HTTP against a local OpenAI-compatible server: plain, streamed, tools, errors."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from agent import Agent
from agent.exceptions import ModelHTTPError
from agent.messages import ModelResponse, TextPart
from agent.models.openai import OpenAIChatModel
from agent.providers.openai import OpenAIProvider
from tests._processes import run

from ._local_server import LocalOpenAIServer, Reply

ROOT = Path(__file__).parents[3]


@pytest.fixture
def server() -> Iterator[LocalOpenAIServer]:
    with LocalOpenAIServer() as running:
        yield running


def local_agent(server: LocalOpenAIServer) -> Agent[None, str]:
    provider = OpenAIProvider(base_url=server.base_url, api_key='local-key')
    return Agent(OpenAIChatModel('local-model', provider=provider), instructions='Be brief.')


async def test_a_run_reaches_the_server_over_http(server: LocalOpenAIServer):
    server.replies = [Reply('Hello from the local server')]

    result = await local_agent(server).run('Hi!')

    assert result.output == 'Hello from the local server'
    [received] = server.received
    assert received.path == '/v1/chat/completions'
    assert received.headers['authorization'] == 'Bearer local-key'
    assert received.body == {
        'model': 'local-model',
        'messages': [{'role': 'system', 'content': 'Be brief.'}, {'role': 'user', 'content': 'Hi!'}],
    }
    response = result.all_messages()[-1]
    assert isinstance(response, ModelResponse)
    assert response.provider_response_id == 'chatcmpl-local-1'
    assert response.usage.output_tokens == 5


async def test_a_streamed_run_reads_server_sent_events_over_http(server: LocalOpenAIServer):
    server.replies = [Reply('one two three')]

    async with local_agent(server).run_stream('Count') as result:
        chunks = [chunk async for chunk in result.stream_text(delta=True, debounce_by=None)]

    assert chunks == ['one', ' two', ' three']
    assert server.received[0].body['stream'] is True
    assert server.received[0].body['stream_options'] == {'include_usage': True}
    assert result.usage.output_tokens == 3


async def test_tool_calls_round_trip_over_http(server: LocalOpenAIServer):
    server.replies = [Reply(tool_calls=[('call_1', 'add', {'a': 2, 'b': 3})]), Reply('2 + 3 = 5')]
    agent = local_agent(server)

    @agent.tool_plain
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    result = await agent.run('What is 2 + 3?')

    assert result.output == '2 + 3 = 5'
    assert server.received[1].body['messages'][-1] == {'role': 'tool', 'tool_call_id': 'call_1', 'content': '5'}


async def test_a_rate_limit_is_a_retryable_error_carrying_retry_after(server: LocalOpenAIServer):
    server.replies = [Reply(status=429, headers={'retry-after': '3'})]

    with pytest.raises(ModelHTTPError) as info:
        await local_agent(server).run('Hi!')

    assert info.value.status_code == 429
    assert info.value.retryable
    assert info.value.retry_after == 3.0
    assert info.value.body == {'error': {'message': 'Scripted error 429', 'type': 'server_error', 'code': None}}


async def test_a_streamed_run_with_an_explicit_client_uses_that_client(server: LocalOpenAIServer):
    server.replies = [Reply('from my client')]
    async with httpx2.AsyncClient() as client:
        provider = OpenAIProvider(base_url=server.base_url, http_client=client)
        agent = Agent(OpenAIChatModel('local-model', provider=provider))
        async with agent.run_stream('Hi') as result:
            assert await result.get_output() == 'from my client'
    assert 'authorization' not in server.received[0].headers
    last = result.all_messages()[-1]
    assert isinstance(last, ModelResponse)
    assert last.parts == [TextPart('from my client')]


def test_the_demo_runs_with_a_real_model_named_on_the_command_line():
    replies = [
        Reply(tool_calls=[('call_1', 'list_files', {})]),
        Reply(tool_calls=[('call_2', 'delete_file', {'path': 'old-report.txt'})]),
        Reply('I deleted old-report.txt.'),
    ]
    with LocalOpenAIServer(replies) as server:
        env = {**os.environ, 'OPENAI_BASE_URL': server.base_url, 'OPENAI_API_KEY': 'demo-key'}
        # Killed with the dev server it starts if it takes too long.
        done = run(
            [sys.executable, 'worker.py', '--demo', 'approve', '--model', 'openai:local-model'],
            cwd=ROOT,
            env=env,
            timeout=120,
        )

    assert done.returncode == 0, done.stderr
    assert 'The agent wants to call delete_file({"path": "old-report.txt"})' in done.stdout
    assert 'Result: I deleted old-report.txt.' in done.stdout
    assert [r.body['model'] for r in server.received] == ['local-model'] * 3
    assert server.received[2].body['messages'][-1]['content'] == 'deleted old-report.txt'
