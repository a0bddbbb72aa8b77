"""Durable runs whose output comes back as JSON text: `NativeOutput` and `PromptedOutput` give the typed output."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from pydantic import BaseModel
from temporalio.client import Client

from agent import Agent, NativeOutput, PromptedOutput
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow

from ._parity_harness import normalized

pytestmark = pytest.mark.asyncio(loop_scope='session')


class City(BaseModel):
    name: str
    country: str


def _city_as_json(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    # Text output modes send no output tool: the model answers with the JSON object as text, and says which mode
    # (and whether it was sent the output schema) it was asked for in the response's metadata.
    parameters = info.model_request_parameters
    assert info.output_tools == []
    seen = {'mode': parameters.output_mode, 'schema': parameters.output_object is not None}
    return ModelResponse(parts=[TextPart('{"name": "Paris", "country": "France"}')], metadata=seen)


@pytest.mark.parametrize(
    ('output_type', 'mode'),
    [(NativeOutput(City), 'native'), (PromptedOutput(City), 'prompted')],
    ids=['native', 'prompted'],
)
async def test_a_durable_run_with_a_text_output_mode_returns_the_structured_output(
    client: Client, task_queue: str, output_type: Any, mode: str
) -> None:
    agent = Agent(FunctionModel(_city_as_json), name='city_text', output_type=output_type)
    async with build_worker(client, {'city_text': agent}, task_queue=task_queue):
        durable: AgentRunOutput = await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='city_text', prompt='Which city is the capital of France?'),
            id=f'city-text-{uuid.uuid4()}',
            task_queue=task_queue,
        )

    assert City.model_validate(durable.output) == City(name='Paris', country='France')
    response = durable.new_messages[-1]
    assert isinstance(response, ModelResponse)
    assert response.metadata == {'mode': mode, 'schema': True}
    local = await agent.run('Which city is the capital of France?')
    assert local.output == City(name='Paris', country='France')
    assert normalized(durable.new_messages) == normalized(local.new_messages())
