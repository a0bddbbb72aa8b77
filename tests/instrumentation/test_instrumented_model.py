"""`InstrumentedModel`: `chat` spans around a model used without an agent."""

from __future__ import annotations

import asyncio

from agent import ModelMessage, ModelRequest, UserPromptPart
from agent.models import ModelRequestParameters
from agent.models.instrumented import InstrumentedModel, instrument_model
from agent.models.test import TestModel

from ._otel import Telemetry, attrs


def test_a_request_through_an_instrumented_model_gets_a_chat_span(telemetry: Telemetry) -> None:
    model = InstrumentedModel(TestModel(), telemetry.settings())

    asyncio.run(model.request([ModelRequest([UserPromptPart('hi')])], None, ModelRequestParameters()))

    chat = attrs(telemetry.span('chat test'))
    assert chat['gen_ai.operation.name'] == 'chat'
    assert chat['gen_ai.usage.output_tokens'] > 0
    assert len(telemetry.points('gen_ai.client.operation.duration')) == 1


def test_a_streamed_request_gets_its_chat_span_when_the_stream_closes(telemetry: Telemetry) -> None:
    model = InstrumentedModel(TestModel(), telemetry.settings())

    async def main() -> None:
        messages: list[ModelMessage] = [ModelRequest([UserPromptPart('hi')])]
        async with model.request_stream(messages, None, ModelRequestParameters()) as stream:
            async for _ in stream:
                pass
            assert telemetry.spans() == []

    asyncio.run(main())

    assert attrs(telemetry.span('chat test'))['gen_ai.usage.output_tokens'] > 0


def test_instrument_model_wraps_only_when_asked_and_only_once(telemetry: Telemetry) -> None:
    plain = TestModel()
    wrapped = instrument_model(plain, telemetry.settings())

    assert instrument_model(plain, False) is plain
    assert isinstance(wrapped, InstrumentedModel)
    assert instrument_model(wrapped, True) is wrapped
