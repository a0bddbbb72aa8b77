"""An exception from user code in a model request's activity fails the run at once, unless it is transient I/O.

History processors and the model-request hooks on the activity side run in the model-request activity, whose retry
policy has no attempt limit: a bug there (an `AttributeError`) used to retry for ever. Now it fails the run with the
exception's type and message, as the in-process run raises it, while a provider's 503 or a dropped connection is
still retried; `build_worker(..., workflow_side_errors='retry')` keeps retrying user code's errors until fixed.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowFailureError, WorkflowHandle
from temporalio.exceptions import ActivityError, ApplicationError

from activities._transient import is_transient, model_request_error
from agent import Agent, ModelRequestContext, RunContext
from agent.capabilities import AbstractCapability, ProcessHistory
from agent.exceptions import (
    ConcurrencyLimitExceeded,
    FallbackExceptionGroup,
    ModelAPIError,
    ModelHTTPError,
    ModelRetry,
    UnexpectedModelBehavior,
)
from agent.messages import ModelMessage, ModelResponse
from agent.models import override_allow_model_requests
from agent.models.openai import OpenAIChatModel
from agent.models.test import TestModel
from agent.providers.openai import OpenAIProvider
from tests.models.providers._local_server import LocalOpenAIServer, Reply
from worker import build_worker
from workflows import AgentRunOutput, DecryptionError

pytestmark = pytest.mark.asyncio(loop_scope='session')

RUN_WAIT = 10.0  # seconds: before, such a run never ended; the bound is for a loaded machine
RETRY_WAIT = 20.0  # seconds: Temporal's back-off before the second and third attempts is 1 s, then 2 s

calls: list[str] = []


def _reads_a_missing_name(messages: list[ModelMessage]) -> list[ModelMessage]:
    calls.append('history processor')
    return [message for message in messages if message.name.startswith('x')]  # pyright: ignore[reportAttributeAccessIssue]


class _RefusesTheRequest(AbstractCapability[Any]):
    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        calls.append('before_model_request')
        raise ValueError('no budget left for this request')


class _ReadsTheResponse(AbstractCapability[Any]):
    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        calls.append('after_model_request')
        return {'parts': response.parts}['text']  # pyright: ignore[reportReturnType]


# Where the user code runs in the activity (all three on its side by default), and what it raises in-process.
PLACES: dict[str, tuple[Callable[[], AbstractCapability[Any]], type[Exception]]] = {
    'history processor': (lambda: ProcessHistory(_reads_a_missing_name), AttributeError),
    'before_model_request': (_RefusesTheRequest, ValueError),
    'after_model_request': (_ReadsTheResponse, KeyError),
}


def _agent(*capabilities: AbstractCapability[Any], name: str = 'hooked') -> Agent[None, str]:
    return Agent(TestModel(custom_output_text='done'), name=name, capabilities=list(capabilities))


async def _start(client: Client, task_queue: str, agent: str) -> WorkflowHandle[Any, AgentRunOutput]:
    return await client.start_workflow(
        'AgentWorkflow',
        {'agent': agent, 'prompt': 'hi'},
        id=f'activity-side-{uuid.uuid4()}',
        task_queue=task_queue,
        result_type=AgentRunOutput,
    )


@pytest.mark.parametrize('place', list(PLACES))
async def test_an_exception_from_user_code_in_the_model_activity_fails_the_run_as_in_process(
    client: Client, task_queue: str, place: str
) -> None:
    make_capability, raises = PLACES[place]
    agent = _agent(make_capability())
    with pytest.raises(raises) as in_process:
        await agent.run('hi')
    expected = f'{type(in_process.value).__name__}: {in_process.value}'
    calls.clear()
    async with build_worker(client, {'hooked': agent}, task_queue=task_queue):
        handle = await _start(client, task_queue, 'hooked')
        with pytest.raises(WorkflowFailureError) as failed:
            async with asyncio.timeout(RUN_WAIT):  # before, the model activity retried for ever
                await handle.result()
    activity_failure = failed.value.cause
    assert isinstance(activity_failure, ActivityError)
    assert activity_failure.message.splitlines()[0] == expected
    cause = activity_failure.cause
    assert isinstance(cause, ApplicationError)
    assert (cause.type, cause.message) == (type(in_process.value).__name__, str(in_process.value))
    assert cause.non_retryable
    assert calls == [place]  # one attempt only


async def test_a_model_that_answers_503_twice_then_200_completes(client: Client, task_queue: str) -> None:
    replies = [Reply(status=503), Reply(status=503), Reply('Hello after the outage')]
    with LocalOpenAIServer(replies) as server:
        model = OpenAIChatModel('local-model', provider=OpenAIProvider(base_url=server.base_url, api_key='local'))
        agent = Agent(model, name='flaky_http')
        async with build_worker(client, {'flaky_http': agent}, task_queue=task_queue):
            with override_allow_model_requests(True):
                handle = await _start(client, task_queue, 'flaky_http')
                async with asyncio.timeout(RETRY_WAIT):
                    result = await handle.result()
    assert result.output == 'Hello after the outage'
    assert len(server.received) == 3


failures: list[Exception] = []


def _flaky_connection(messages: list[ModelMessage]) -> list[ModelMessage]:
    calls.append('history processor')
    if failures:
        raise failures.pop(0)
    return messages


async def test_a_hook_whose_connection_fails_is_retried_until_it_gets_through(client: Client, task_queue: str) -> None:
    calls.clear()
    failures[:] = [ConnectionResetError('connection reset by peer'), TimeoutError()]
    agent = _agent(ProcessHistory(_flaky_connection), name='flaky_hook')
    async with build_worker(client, {'flaky_hook': agent}, task_queue=task_queue):
        handle = await _start(client, task_queue, 'flaky_hook')
        async with asyncio.timeout(RETRY_WAIT):
            result = await handle.result()
    assert result.output == 'done'
    assert calls == ['history processor'] * 3


broken = True


def _broken_until_fixed(messages: list[ModelMessage]) -> list[ModelMessage]:
    calls.append('history processor')
    if broken:
        raise AttributeError("'ModelRequest' object has no attribute 'name'")
    return messages


async def _wait_for_attempt(handle: WorkflowHandle[Any, Any], attempt: int) -> None:
    """Wait until the run's model activity is on `attempt` (or a later one)."""
    async with asyncio.timeout(RETRY_WAIT):
        while True:
            pending = (await handle.describe()).raw_description.pending_activities
            if pending and pending[0].attempt >= attempt:
                return
            await asyncio.sleep(0.05)


async def test_with_retry_an_activity_side_error_is_retried_until_the_code_is_fixed(
    client: Client, task_queue: str
) -> None:
    global broken
    broken = True
    calls.clear()
    agent = _agent(ProcessHistory(_broken_until_fixed), name='mended')
    async with build_worker(client, {'mended': agent}, task_queue=task_queue, workflow_side_errors='retry'):
        handle = await _start(client, task_queue, 'mended')
        await _wait_for_attempt(handle, 2)
        assert (await handle.describe()).status == WorkflowExecutionStatus.RUNNING
        broken = False
        async with asyncio.timeout(RETRY_WAIT):
            result = await handle.result()
    assert result.output == 'done'
    assert len(calls) >= 2  # the run went on in a retried attempt


def _status_error(status: int) -> httpx2.HTTPStatusError:
    request = httpx2.Request('GET', 'http://127.0.0.1/summary')
    return httpx2.HTTPStatusError('status', request=request, response=httpx2.Response(status, request=request))


@pytest.mark.parametrize(
    ('error', 'transient'),
    [
        (ModelHTTPError(503, 'm'), True),
        (ModelHTTPError(429, 'm'), True),
        (ModelHTTPError(400, 'm'), False),
        (ModelAPIError('m', 'Request to http://127.0.0.1/v1 failed: ConnectError()'), True),
        (ConnectionRefusedError(), True),
        (TimeoutError(), True),
        (httpx2.ConnectError('refused'), True),
        (httpx2.ReadTimeout('slow'), True),
        (_status_error(502), True),
        (_status_error(404), False),
        (ConcurrencyLimitExceeded('busy'), True),
        (DecryptionError("Missing key id 'k1': this process has keys k2"), True),  # another worker may hold it
        (FallbackExceptionGroup('all failed', [ModelHTTPError(401, 'a'), ModelHTTPError(503, 'b')]), True),
        (FallbackExceptionGroup('all failed', [ModelHTTPError(401, 'a'), ModelHTTPError(403, 'b')]), False),
        (AttributeError('name'), False),
        (ValueError('bad'), False),
        (UnexpectedModelBehavior('odd'), False),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, BaseException) else str(value),
)
async def test_only_io_is_taken_for_transient(error: BaseException, transient: bool) -> None:
    assert is_transient(error) is transient


async def test_what_a_model_activity_raises_for_each_kind_of_error() -> None:
    bug = model_request_error(AttributeError('no name'))
    assert bug is not None
    assert (bug.type, bug.message, bug.non_retryable) == ('AttributeError', 'no name', True)
    assert model_request_error(AttributeError('no name'), retry_user_errors=True) is None  # propagates: retried
    # A run failure is the same on every attempt, with or without retry-until-fixed.
    odd = model_request_error(UnexpectedModelBehavior('odd'), retry_user_errors=True)
    assert odd is not None
    assert (odd.type, odd.non_retryable) == ('UnexpectedModelBehavior', True)
    assert model_request_error(ConnectionResetError('reset')) is None  # propagates: retried
    busy = model_request_error(ModelHTTPError(503, 'm'))
    assert busy is not None
    assert (busy.type, busy.non_retryable) == ('ModelHTTPError', False)
    retry = model_request_error(ModelRetry('shorter, please'))
    assert retry is not None
    assert retry.type == 'ModelRetry'
    # Code that knows it runs in Temporal keeps the posture it chose.
    assert model_request_error(ApplicationError('try again later', non_retryable=False)) is None
