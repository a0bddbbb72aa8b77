"""`FallbackModel`: the next model answers when one fails; every failure together when all do."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from agent import Agent, FallbackExceptionGroup, ModelHTTPError
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models import Model, StreamedResponse
from agent.models.fallback import FallbackModel
from agent.models.function import AgentInfo, FunctionModel


class _Unavailable(Model):
    """Fails like an HTTP model whose provider is down: before any response (or stream) starts."""

    def __init__(self, status: int, name: str) -> None:
        super().__init__()
        self.status, self.name = status, name

    async def request(
        self, messages: list[ModelMessage], model_settings: Any, model_request_parameters: Any
    ) -> ModelResponse:
        raise ModelHTTPError(self.status, self.name, body='overloaded')

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: Any,
        model_request_parameters: Any,
        run_context: Any = None,
    ) -> AsyncGenerator[StreamedResponse]:
        raise ModelHTTPError(self.status, self.name, body='overloaded')
        yield  # pragma: no cover

    @property
    def model_name(self) -> str:
        return self.name

    @property
    def system(self) -> str:
        return 'down'


def _failing(status: int, name: str) -> Model:
    return _Unavailable(status, name)


def _answering(text: str) -> FunctionModel:
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield text

    return FunctionModel(lambda m, i: ModelResponse(parts=[TextPart(text)]), stream_function=stream, model_name='good')


def test_next_model_answers_when_the_first_fails_with_an_api_error() -> None:
    model = FallbackModel(_failing(503, 'bad'), _answering('from the fallback'))
    result = Agent(model).run_sync('hi')
    assert result.output == 'from the fallback'
    assert model.model_name == 'fallback:bad,good'
    assert model.system == 'fallback:down,function'


def test_all_models_failing_raise_a_fallback_exception_group_with_each_error() -> None:
    model = FallbackModel(_failing(503, 'a'), _failing(429, 'b'))
    with pytest.raises(FallbackExceptionGroup) as raised:
        Agent(model).run_sync('hi')
    assert [error.status_code for error in raised.value.exceptions] == [503, 429]  # pyright: ignore[reportAttributeAccessIssue]


def test_errors_fallback_on_does_not_accept_are_raised_at_once() -> None:
    model = FallbackModel(_failing(503, 'a'), _answering('unused'), fallback_on=lambda error: False)
    with pytest.raises(ModelHTTPError):
        Agent(model).run_sync('hi')


async def test_streaming_falls_back_before_the_stream_starts() -> None:
    model = FallbackModel(_failing(500, 'bad'), _answering('streamed'))
    async with Agent(model).run_stream('hi') as result:
        assert await result.get_output() == 'streamed'
    with pytest.raises(FallbackExceptionGroup):
        async with Agent(FallbackModel(_failing(500, 'a'), _failing(502, 'b'))).run_stream('hi') as result:
            await result.get_output()
