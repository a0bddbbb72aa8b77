"""Provider errors in durable runs: 408/409/429/5xx retried (honouring retry-after), other 4xx fail at once."""

from __future__ import annotations

import uuid

import pytest
from temporalio.client import Client, WorkflowFailureError

from agent import Agent
from agent.exceptions import ModelHTTPError
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow

pytestmark = pytest.mark.asyncio(loop_scope='session')

calls: list[int] = []


def failing_then_ok(statuses: list[int]) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(len(calls) + 1)
        if len(calls) <= len(statuses):
            raise ModelHTTPError(statuses[len(calls) - 1], 'scripted', {'error': 'busy'}, retry_after=0.05)
        return ModelResponse(parts=[TextPart(f'ok after {len(calls)} calls')])

    return FunctionModel(respond)


async def run(client: Client, task_queue: str, agent: Agent[None, str]) -> AgentRunOutput:
    async with build_worker(client, {'flaky_model_agent': agent}, task_queue=task_queue):
        return await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='flaky_model_agent', prompt='hi'),
            id=f'model-errors-{uuid.uuid4()}',
            task_queue=task_queue,
        )


async def test_rate_limits_and_server_errors_are_retried_until_the_model_answers(
    client: Client, task_queue: str
) -> None:
    calls.clear()
    result = await run(client, task_queue, Agent(failing_then_ok([429, 503, 408]), name='flaky_model_agent'))
    assert result.output == 'ok after 4 calls'
    assert calls == [1, 2, 3, 4]


async def test_a_bad_request_fails_the_run_without_retrying(client: Client, task_queue: str) -> None:
    calls.clear()
    with pytest.raises(WorkflowFailureError) as info:
        await run(client, task_queue, Agent(failing_then_ok([400]), name='flaky_model_agent'))
    assert calls == [1]
    assert 'status_code: 400' in str(info.value.cause.cause)  # type: ignore[union-attr]
