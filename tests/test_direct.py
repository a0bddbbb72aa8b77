"""Direct model requests (`agent.direct`): one request to a model without an agent."""

from __future__ import annotations

import pytest

from agent.direct import model_request, model_request_stream, model_request_stream_sync, model_request_sync
from agent.exceptions import UserError
from agent.messages import ModelMessage, ModelRequest, ModelResponse, PartStartEvent, TextPart, UserPromptPart
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel


def _echo(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    request = messages[-1]
    assert isinstance(request, ModelRequest)
    prompt = request.parts[0]
    assert isinstance(prompt, UserPromptPart)
    return ModelResponse(parts=[TextPart(f'echo: {prompt.content}')])


MESSAGES = [ModelRequest(parts=[UserPromptPart('hello')])]


async def test_model_request_returns_the_models_response() -> None:
    response = await model_request(FunctionModel(_echo), MESSAGES)

    assert response.parts == [TextPart('echo: hello')]


def test_model_request_sync_accepts_a_model_name() -> None:
    response = model_request_sync('test', MESSAGES)

    assert response.parts == [TextPart('success (no tool calls)')]


async def test_model_request_sync_refuses_a_running_event_loop() -> None:
    with pytest.raises(UserError, match='running event loop'):
        model_request_sync(TestModel(), MESSAGES)


async def test_model_request_stream_yields_events_then_the_response() -> None:
    async with model_request_stream(TestModel(custom_output_text='streamed'), MESSAGES) as stream:
        events = [event async for event in stream]

    assert isinstance(events[0], PartStartEvent)
    assert stream.get().parts == [TextPart('streamed')]


def test_model_request_stream_sync_iterates_events_in_a_with_block() -> None:
    with model_request_stream_sync(TestModel(custom_output_text='streamed'), MESSAGES) as stream:
        events = list(stream)

    assert events
    assert stream.response.parts == [TextPart('streamed')]
    assert stream.model_name == 'test'


def test_model_request_stream_sync_must_be_used_in_a_with_block() -> None:
    stream = model_request_stream_sync(TestModel(), MESSAGES)

    with pytest.raises(UserError, match='with'):
        list(stream)
