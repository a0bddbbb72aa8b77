"""Direct model requests (`agent.direct`): one request to a model without an agent."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from agent import Agent, direct
from agent.direct import (
    StreamedResponseSync,
    model_request,
    model_request_stream,
    model_request_stream_sync,
    model_request_sync,
)
from agent.exceptions import UserError
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    PartStartEvent,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.models import StreamedResponse
from agent.models.function import AgentInfo, FunctionModel
from agent.models.instrumented import InstrumentedModel
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

    assert repr(stream) == 'StreamedResponseSync(context_entered=False)'
    with pytest.raises(RuntimeError, match='must be used as a context manager'):
        list(stream)
    with pytest.raises(RuntimeError, match='must be used as a context manager'):
        _ = stream.usage


def test_model_request_stream_sync_reports_usage_as_a_property() -> None:
    with model_request_stream_sync(TestModel(custom_output_text='streamed'), MESSAGES) as stream:
        list(stream)

    assert stream.usage.output_tokens > 0
    assert stream.usage.input_tokens > 0


def test_a_sync_stream_whose_model_never_starts_answering_gives_up_after_the_initialization_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()

    @asynccontextmanager
    async def never_starts() -> AsyncIterator[StreamedResponse]:
        await asyncio.to_thread(release.wait, 5)
        raise RuntimeError('the model gave up')
        yield  # pragma: no cover

    monkeypatch.setattr(direct, 'STREAM_INITIALIZATION_TIMEOUT', 0.05)
    with StreamedResponseSync(_async_stream_cm=never_starts()) as stream:
        with pytest.raises(RuntimeError, match='failed to initialize within timeout'):
            _ = stream.response
        release.set()
        with pytest.raises(RuntimeError, match='the model gave up'):
            list(stream)


@pytest.mark.parametrize(
    ('default', 'instrument', 'traced'),
    [(False, None, False), (True, None, True), (True, False, False), (False, True, True)],
)
def test_direct_requests_are_traced_when_asked_or_when_every_agent_is(
    default: bool, instrument: bool | None, traced: bool
) -> None:
    previous = Agent._instrument_default
    Agent.instrument_all(default)
    try:
        model = direct._prepare_model('test', instrument)
        response = model_request_sync('test', MESSAGES, instrument=instrument)
    finally:
        Agent.instrument_all(previous)

    assert isinstance(model, InstrumentedModel) is traced
    assert response.parts == [TextPart('success (no tool calls)')]


async def test_a_tool_result_request_without_instructions_keeps_those_of_the_request_it_answers() -> None:
    seen: list[str | None] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info.instructions)
        return ModelResponse(parts=[TextPart('done')])

    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('Weather in Paris?')], instructions='Be brief.'),
        ModelResponse(parts=[ToolCallPart('weather', {'city': 'Paris'}, 'call-1')]),
        ModelRequest(parts=[ToolReturnPart('weather', 'sunny', 'call-1')]),
    ]
    follow_up = [*history[:2], ModelRequest(parts=[UserPromptPart('And Rome?')])]

    await model_request(FunctionModel(answer), history)
    await model_request(FunctionModel(answer), follow_up)

    assert seen == ['Be brief.', None]
