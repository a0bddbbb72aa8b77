"""`RequestInput` in a durable run: until the workflow records waits for external events, the run refuses one.

A wait held in the worker would not be in the run's history: a replay would ask again and a restart would lose it.
So the run fails at once with a `UserError` that says so, and `ask` is never called.
"""

from __future__ import annotations

import uuid

import pytest
from temporalio.client import Client, WorkflowFailureError

from agent import Agent, DeferredToolRequests, RunContext
from agent.capabilities import RequestInput
from agent.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows import AgentRunInput, AgentWorkflow

pytestmark = pytest.mark.asyncio(loop_scope='session')


async def test_a_durable_run_refuses_to_wait_for_request_input_with_a_clear_error(
    client: Client, task_queue: str
) -> None:
    asked: list[str] = []

    def ask(ctx: RunContext[None], requests: DeferredToolRequests, token: str) -> None:
        asked.append(token)

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('delete_file', {'path': 'a.txt'}, 'del-1')])
        return ModelResponse(parts=[TextPart('done')])

    agent = Agent(FunctionModel(respond), name='request_input_durable', capabilities=[RequestInput(ask)])

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        return f'deleted {path}'

    async with build_worker(client, {'request_input_durable': agent}, task_queue=task_queue):
        with pytest.raises(WorkflowFailureError) as info:
            await client.execute_workflow(
                AgentWorkflow.run,
                AgentRunInput(agent='request_input_durable', prompt='Delete a.txt'),
                id=f'request-input-{uuid.uuid4()}',
                task_queue=task_queue,
            )

    assert 'not available in a durable run yet' in str(info.value.cause)
    assert asked == []
