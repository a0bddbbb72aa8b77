"""`ConcurrencyLimitedModel`: a model whose requests wait for a slot of a concurrency limiter."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

from agent._parts import ModelMessage, ModelResponse
from agent._run_context import RunContext
from agent.concurrency import AbstractConcurrencyLimiter, AnyConcurrencyLimit, limiter_slot, normalize_to_limiter
from agent.settings import ModelSettings

from . import KnownModelName, Model, ModelRequestParameters, StreamedResponse, infer_model
from .wrapper import WrapperModel

__all__ = ('ConcurrencyLimitedModel', 'limit_model_concurrency')


class ConcurrencyLimitedModel(WrapperModel):
    """Wraps a model so each request (and each stream, until it ends) holds a slot of `limiter`."""

    def __init__(self, wrapped: Model | KnownModelName, limiter: AnyConcurrencyLimit) -> None:
        """Wrap a model.

        Args:
            wrapped: The model, or a model name.
            limiter: A limiter (share one instance between models to share the limit), or a limit to build one.
        """
        super().__init__(wrapped)
        self.limiter: AbstractConcurrencyLimiter | None = normalize_to_limiter(limiter, name=self.wrapped.model_name)
        """The limiter requests wait on (`None`: no limit)."""

    @property
    def _limiter(self) -> AbstractConcurrencyLimiter | None:
        # Pydantic AI's name for `limiter`, which code written against it reads.
        return self.limiter

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Wait for a slot, then send the request to the wrapped model."""
        async with limiter_slot(self.limiter, f'model:{self.model_name}'):
            return await self.wrapped.request(messages, model_settings, model_request_parameters)

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        """Wait for a slot, then stream the wrapped model's response; the slot is held until the stream closes."""
        async with (
            limiter_slot(self.limiter, f'model:{self.model_name}'),
            self.wrapped.request_stream(messages, model_settings, model_request_parameters, run_context) as response,
        ):
            yield response


def limit_model_concurrency(model: Model | KnownModelName, limiter: AnyConcurrencyLimit) -> Model:
    """`model` with its requests limited by `limiter`; the model itself when `limiter` is `None`."""
    if limiter is None:
        return infer_model(model)
    return ConcurrencyLimitedModel(model, limiter)
