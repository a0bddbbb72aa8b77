"""A durable run against a real OpenAI-compatible HTTP server: a 429 with `retry-after` is retried, then completes."""

from __future__ import annotations

import uuid

import pytest
from temporalio.client import Client

from agent import Agent
from agent.models import override_allow_model_requests
from agent.models.openai import OpenAIChatModel
from agent.providers.openai import OpenAIProvider
from tests.models.providers._local_server import LocalOpenAIServer, Reply
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow

pytestmark = pytest.mark.asyncio(loop_scope='session')


async def run(client: Client, task_queue: str, agent: Agent[None, str], model: str | None = None) -> AgentRunOutput:
    async with build_worker(client, {'local_http_agent': agent}, task_queue=task_queue):
        with override_allow_model_requests(True):
            return await client.execute_workflow(
                AgentWorkflow.run,
                AgentRunInput(agent='local_http_agent', prompt='Hi!', model=model),
                id=f'provider-http-{uuid.uuid4()}',
                task_queue=task_queue,
            )


async def test_a_rate_limited_request_is_retried_after_retry_after_and_the_run_completes(
    client: Client, task_queue: str
) -> None:
    # Temporal's own first backoff is 1 s, so a 2 s gap shows the provider's retry-after was honoured.
    replies = [Reply(status=429, headers={'retry-after': '2'}), Reply('Hello after waiting')]
    with LocalOpenAIServer(replies) as server:
        provider = OpenAIProvider(base_url=server.base_url, api_key='local-key')
        agent = Agent(OpenAIChatModel('local-model', provider=provider), name='local_http_agent')

        result = await run(client, task_queue, agent)

    assert result.output == 'Hello after waiting'
    first, second = server.received
    assert first.body == second.body == {'model': 'local-model', 'messages': [{'role': 'user', 'content': 'Hi!'}]}
    assert second.at - first.at >= 1.9
    assert result.usage.requests == 1
    assert result.usage.output_tokens == 3


async def test_a_model_named_in_the_run_input_is_built_from_the_environment_in_the_worker(
    client: Client, task_queue: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with LocalOpenAIServer([Reply('Served by the env-configured model')]) as server:
        monkeypatch.setenv('OPENAI_BASE_URL', server.base_url)
        monkeypatch.setenv('OPENAI_API_KEY', 'env-key')
        agent = Agent('test', name='local_http_agent')

        result = await run(client, task_queue, agent, model='openai:local-model')

    assert result.output == 'Served by the env-configured model'
    [received] = server.received
    assert received.headers['authorization'] == 'Bearer env-key'
    assert received.body['model'] == 'local-model'
