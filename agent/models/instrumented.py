"""Instrumenting a bare model: `InstrumentedModel` opens a `chat` span around each of its requests.

Agents do not need it (`Agent(instrument=...)` and the `Instrumentation` capability trace their model requests);
it is for models used directly, e.g. with `agent.direct.model_request`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

from agent._instrumentation import InstrumentationSettings, model_request_span
from agent._model_request_context import ModelRequestContext
from agent._parts import ModelMessage, ModelResponse
from agent._run_context import RunContext
from agent.settings import ModelSettings

from . import KnownModelName, Model, ModelRequestParameters, StreamedResponse
from .wrapper import WrapperModel

__all__ = ('InstrumentationSettings', 'InstrumentedModel', 'instrument_model')


def instrument_model(model: Model, instrument: InstrumentationSettings | bool) -> Model:
    """`model` wrapped in an `InstrumentedModel` when `instrument` asks for it (and it is not wrapped already)."""
    if not instrument or isinstance(model, InstrumentedModel):
        return model
    return InstrumentedModel(model, None if instrument is True else instrument)


class InstrumentedModel(WrapperModel):
    """A model whose requests (streamed or not) are traced with `chat <model>` spans and the GenAI metrics."""

    def __init__(self, wrapped: Model | KnownModelName, options: InstrumentationSettings | None = None) -> None:
        """Wrap a model.

        Args:
            wrapped: The model, or a model name resolved with `infer_model`.
            options: The instrumentation settings; the global providers, without content, when not given.
        """
        super().__init__(wrapped)
        self.instrumentation_settings: InstrumentationSettings = options or InstrumentationSettings()
        """Where this model's spans and metrics go."""

    def _context(
        self, messages: list[ModelMessage], settings: ModelSettings | None, parameters: ModelRequestParameters
    ) -> ModelRequestContext:
        return ModelRequestContext(self.wrapped, messages, settings, parameters)

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Send the request to the wrapped model inside a `chat` span."""
        context = self._context(messages, model_settings, model_request_parameters)
        with model_request_span(self.instrumentation_settings, context) as span:
            response = await self.wrapped.request(messages, model_settings, model_request_parameters)
            span.finish(response)
            return response

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        """Stream the wrapped model's response inside a `chat` span that ends when the stream is closed."""
        context = self._context(messages, model_settings, model_request_parameters)
        with model_request_span(self.instrumentation_settings, context) as span:
            async with self.wrapped.request_stream(
                messages, model_settings, model_request_parameters, run_context
            ) as stream:
                try:
                    yield stream
                finally:
                    # What was streamed so far is the response, even if the consumer stopped early.
                    span.finish(stream.get())
