"""A model-request hook's `ModelRetry` is a retry in durable runs too, where those hooks run in the model activity."""

from __future__ import annotations

import uuid

import pytest
from temporalio.client import Client

from agent import Agent, ModelRequestContext, ModelRetry, RunContext
from agent.capabilities import Hooks
from agent.messages import ModelMessage, ModelResponse, RetryPromptPart, TextPart
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow

pytestmark = pytest.mark.asyncio(loop_scope='session')


def _shout_then_speak(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    # Stateless, so the in-process and the durable run see the same answers: shout first, then speak normally.
    answered = sum(isinstance(m, ModelResponse) for m in messages)
    return ModelResponse(parts=[TextPart('HELLO' if answered == 0 else 'hello')])


def _quiet_agent(name: str) -> Agent[None, str]:
    hooks = Hooks[None]()

    @hooks.on.after_model_request
    def no_shouting(ctx: RunContext[None], *, request_context: ModelRequestContext, response: ModelResponse):
        if response.text and response.text.isupper():
            raise ModelRetry('Please do not shout.')
        return response

    return Agent(FunctionModel(_shout_then_speak), name=name, capabilities=[hooks])


def _shape(messages: list[ModelMessage]) -> list[tuple[str, list[str]]]:
    shape: list[tuple[str, list[str]]] = []
    for message in messages:
        texts = [str(part.content) for part in message.parts if isinstance(part, TextPart | RetryPromptPart)]
        shape.append((message.kind, texts))
    return shape


async def test_a_response_rejected_by_an_after_model_request_hook_is_retried_durably_as_in_process(
    client: Client, task_queue: str
) -> None:
    local = await _quiet_agent('quiet_local').run('hi')
    async with build_worker(client, {'quiet': _quiet_agent('quiet')}, task_queue=task_queue):
        durable: AgentRunOutput = await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='quiet', prompt='hi'),
            id=f'quiet-{uuid.uuid4()}',
            task_queue=task_queue,
        )
    assert durable.output == local.output == 'hello'
    assert _shape(durable.new_messages) == _shape(local.new_messages())
    assert ('response', ['HELLO']) in _shape(durable.new_messages)  # the rejected answer stays in the history
    assert durable.usage.requests == local.usage().requests == 2
