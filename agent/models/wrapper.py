"""`WrapperModel`: a model that delegates to another, the base for models that add behaviour around one."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from agent._events import ModelResponseStreamEvent
from agent._parts import ModelMessage, ModelResponse
from agent._run_context import RunContext
from agent.settings import ModelSettings

from . import KnownModelName, Model, ModelProfile, ModelRequestParameters, StreamedResponse, infer_model

__all__ = ('CompletedStreamedResponse', 'WrapperModel')


class CompletedStreamedResponse(StreamedResponse):
    """A stream whose response is already complete: it has no events left, and `get()` is that response.

    It stands for a streamed request whose stream was read elsewhere (in an activity, say), so that code
    expecting a `StreamedResponse` can be handed the finished response.
    """

    def __init__(self, model_request_parameters: ModelRequestParameters, response: ModelResponse) -> None:
        """Wrap `response`, answering a request made with `model_request_parameters`."""
        super().__init__(
            model_request_parameters,
            model_name=response.model_name or '',
            provider_name=response.provider_name,
            provider_url=response.provider_url,
            timestamp=response.timestamp,
        )
        self.response = response
        """The complete response."""
        self._usage = response.usage
        self._finished = True

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        return
        yield

    def get(self) -> ModelResponse:
        """The complete response, as it was given."""
        return self.response


class WrapperModel(Model):
    """Delegates requests and properties to `wrapped`; subclasses override what they want to change."""

    def __init__(self, wrapped: Model | KnownModelName) -> None:
        """Wrap a model.

        Args:
            wrapped: The model, or a model name resolved with `infer_model`.
        """
        super().__init__()
        self.wrapped: Model = infer_model(wrapped)
        """The model requests are delegated to."""

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Send the request to the wrapped model."""
        return await self.wrapped.request(messages, model_settings, model_request_parameters)

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        """Stream the response of the wrapped model."""
        async with self.wrapped.request_stream(
            messages, model_settings, model_request_parameters, run_context
        ) as response:
            yield response

    def customize_request_parameters(self, model_request_parameters: ModelRequestParameters) -> ModelRequestParameters:
        """The wrapped model's customization."""
        return self.wrapped.customize_request_parameters(model_request_parameters)

    def prepare_request(
        self, model_settings: ModelSettings | None, model_request_parameters: ModelRequestParameters
    ) -> tuple[ModelSettings | None, ModelRequestParameters]:
        """The wrapped model's preparation."""
        return self.wrapped.prepare_request(model_settings, model_request_parameters)

    @property
    def model_name(self) -> str:
        """The wrapped model's name."""
        return self.wrapped.model_name

    @property
    def system(self) -> str:
        """The wrapped model's provider."""
        return self.wrapped.system

    @property
    def settings(self) -> ModelSettings | None:
        """The wrapped model's default settings."""
        return self.wrapped.settings

    @property
    def profile(self) -> ModelProfile:
        """The wrapped model's profile."""
        return self.wrapped.profile

    @property
    def base_url(self) -> str | None:
        """The wrapped model's base URL."""
        return self.wrapped.base_url
