"""Configuration errors fail the run after one attempt, with a message that says what to fix; keys never reach history.

An unknown model or provider, a missing provider key on the worker, an agent without a model, and a provider's
401/403 are the same on every attempt: retrying them only hides the message behind a run that never ends.
"""

from __future__ import annotations

import httpx2
import pytest
from temporalio.client import Client, WorkflowFailureError
from temporalio.client import WorkflowHistory as History

from agent import Agent
from agent.models import override_allow_model_requests
from agent.models.openai import OpenAIChatModel
from agent.providers.openai import OpenAIProvider

from ._failure_history import activity_attempts, failed_run, failure_messages, history_bytes, workflow_task_failures

pytestmark = pytest.mark.asyncio(loop_scope='session')


def assert_failed_once(error: WorkflowFailureError, history: History, message: str) -> None:
    """The run failed with `message` (first in its failure) after exactly one model-request attempt."""
    top = failure_messages(error)[1]  # [0] is the client's "Workflow execution failed"
    assert top.startswith(message), top
    assert len(top.splitlines()) <= 2, top
    assert activity_attempts(history, '.model_request') == [1]
    assert workflow_task_failures(history) == 0


@pytest.mark.parametrize(
    ('model', 'message'),
    [
        ('nonsense', "UserError: Cannot infer a model from 'nonsense'"),
        ('acme:gpt', "UserError: Unknown model provider 'acme' in 'acme:gpt'"),
    ],
)
async def test_an_unknown_model_in_the_run_input_fails_the_run_after_one_attempt(
    client: Client, task_queue: str, model: str, message: str
) -> None:
    agent = Agent('test', name='config_agent')
    error, history = await failed_run(client, task_queue, agent, 'config_agent', model=model)
    assert_failed_once(error, history, message)


async def test_an_unknown_model_of_the_agent_fails_the_run_after_one_attempt(client: Client, task_queue: str) -> None:
    agent = Agent('acme:gpt', name='config_agent', defer_model_check=True)
    error, history = await failed_run(client, task_queue, agent, 'config_agent')
    assert_failed_once(error, history, "UserError: Unknown model provider 'acme'")


async def test_a_missing_provider_key_fails_the_run_after_one_attempt(
    client: Client, task_queue: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)
    monkeypatch.delenv('OPENAI_BASE_URL', raising=False)
    agent = Agent('test', name='config_agent')
    # Requests are allowed, so the refusal of the test set-up cannot be what fails the run: the missing key is.
    with override_allow_model_requests(True):
        error, history = await failed_run(client, task_queue, agent, 'config_agent', model='openai:gpt-5.2')
    assert_failed_once(error, history, 'UserError: No API key for OpenAI: set the `OPENAI_API_KEY`')


async def test_an_agent_without_a_model_fails_the_run_after_one_attempt(client: Client, task_queue: str) -> None:
    agent = Agent(name='config_agent')
    error, history = await failed_run(client, task_queue, agent, 'config_agent')
    assert_failed_once(error, history, "UserError: Agent 'config_agent' has no model")


SHAPED_KEY = 'sk-proj-Zq81vL0cRkT5wXy2Nn7MaB3dEfGhJ'
"""A key in OpenAI's shape, given to the provider in code."""
SHAPELESS_KEY = 'corp-gateway-4f9a1c77d2e84b6a'
"""A key in no known shape, which only the worker's environment names."""


def rejecting_provider(status: int, key: str | None) -> OpenAIProvider:
    """A provider whose API answers every request with `status` and an error body that echoes the key it got."""

    def handle(request: httpx2.Request) -> httpx2.Response:
        sent = request.headers['authorization'].removeprefix('Bearer ')
        error = {'message': f'Incorrect API key provided: {sent}', 'type': 'invalid_request_error', 'key': sent}
        return httpx2.Response(status, json={'error': error}, request=request)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handle))
    return OpenAIProvider(base_url='https://api.example.com/v1', api_key=key, http_client=client)


@pytest.mark.parametrize('status', [401, 403])
@pytest.mark.parametrize('key', [SHAPED_KEY, SHAPELESS_KEY], ids=['shaped-key', 'env-key'])
async def test_a_rejected_key_fails_the_run_after_one_attempt_without_writing_the_key(
    client: Client,
    task_queue: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    status: int,
    key: str,
) -> None:
    given = key if key == SHAPED_KEY else None
    if given is None:
        monkeypatch.setenv('OPENAI_API_KEY', key)
    agent = Agent(OpenAIChatModel('gpt-5.2', provider=rejecting_provider(status, given)), name='config_agent')
    with override_allow_model_requests(True):
        error, history = await failed_run(client, task_queue, agent, 'config_agent')
    assert_failed_once(error, history, f'ModelHTTPError: status_code: {status}')
    assert 'Incorrect API key provided' in failure_messages(error)[1]
    assert key.encode() not in history_bytes(history)
    assert all(key not in message for message in failure_messages(error))
    assert 'Completing activity as failed' in caplog.text  # the worker logged the failure, without the key
    assert key not in caplog.text
