"""`FallbackModel`: try models in order until one answers.

```python
from agent.models.fallback import FallbackModel

model = FallbackModel('openai:gpt-5.2', 'anthropic:claude-sonnet-4-6')
```

A model's failure moves on to the next model only if `fallback_on` says so (by default: a provider API error,
`ModelAPIError`, which includes HTTP errors); any other error is raised at once. When every model failed, a
`FallbackExceptionGroup` carries each model's error, in order. Each model prepares the request itself (its own
profile, settings and native tool support), so the fallback model passes requests through unprepared.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, TypeAlias

from agent._parts import ModelMessage, ModelResponse
from agent._run_context import RunContext
from agent.exceptions import FallbackExceptionGroup, ModelAPIError, UserError
from agent.settings import ModelSettings

from . import KnownModelName, Model, ModelProfile, ModelRequestParameters, StreamedResponse, infer_model

__all__ = ('FallbackModel', 'FallbackOn')

FallbackOn: TypeAlias = tuple[type[Exception], ...] | type[Exception] | Callable[[Exception], bool]
"""When to move on to the next model: exception types, or a function of the error."""


class FallbackModel(Model):
    """A model that sends each request to its models in turn until one succeeds."""

    def __init__(
        self,
        default_model: Model | KnownModelName | str,
        *fallback_models: Model | KnownModelName | str,
        fallback_on: FallbackOn = (ModelAPIError,),
    ) -> None:
        """Create a fallback model.

        Args:
            default_model: The model tried first.
            fallback_models: The models tried next, in order.
            fallback_on: Which errors move on to the next model: exception types, or a function that takes the
                error and returns whether to fall back. Other errors are raised at once.

        Raises:
            UserError: if `fallback_on` is an empty tuple (no error would ever fall back).
        """
        super().__init__()
        self.models: list[Model] = [infer_model(m) for m in (default_model, *fallback_models)]
        """The models, in the order they are tried."""
        on: Any = fallback_on  # a union pyright cannot narrow by `isinstance(..., type)`
        if on == ():
            raise UserError('FallbackModel(fallback_on=()) would never fall back; pass exception types or a function')
        self._falls_back: Callable[[Exception], bool] = (
            partial(_is_instance, types=on) if isinstance(on, tuple | type) else on
        )

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """The first successful response of the models, tried in order.

        Raises:
            FallbackExceptionGroup: when every model failed with an error `fallback_on` accepts.
        """
        errors: list[Exception] = []
        for model in self.models:
            try:
                return await model.request(messages, model_settings, model_request_parameters)
            except Exception as error:
                if not self._falls_back(error):
                    raise
                errors.append(error)
        raise FallbackExceptionGroup('All models from FallbackModel failed', errors)

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        """The stream of the first model that starts one; errors once streaming has begun are not retried.

        Raises:
            FallbackExceptionGroup: when every model failed to start its stream with an error `fallback_on` accepts.
        """
        errors: list[Exception] = []
        for model in self.models:
            context = model.request_stream(messages, model_settings, model_request_parameters, run_context)
            try:
                response = await context.__aenter__()
            except Exception as error:
                if not self._falls_back(error):
                    raise
                errors.append(error)
                continue
            # Once the stream is handed out, its errors belong to the caller: another model cannot take over
            # a response that is already partly consumed.
            async with _exiting(context):
                yield response
            return
        raise FallbackExceptionGroup('All models from FallbackModel failed', errors)

    def prepare_request(
        self, model_settings: ModelSettings | None, model_request_parameters: ModelRequestParameters
    ) -> tuple[ModelSettings | None, ModelRequestParameters]:
        """Unchanged: each model prepares the request for itself when it is tried."""
        return model_settings, model_request_parameters

    @property
    def model_name(self) -> str:
        """`fallback:<name>,<name>,...`."""
        return f'fallback:{",".join(model.model_name for model in self.models)}'

    @property
    def system(self) -> str:
        """`fallback:<system>,<system>,...`."""
        return f'fallback:{",".join(model.system for model in self.models)}'

    @property
    def profile(self) -> ModelProfile:
        """The first model's profile (each model applies its own when it prepares a request)."""
        return self.models[0].profile


def _is_instance(error: Exception, types: Any) -> bool:
    return isinstance(error, types)


@asynccontextmanager
async def _exiting(context: Any) -> AsyncGenerator[None]:
    """Exit an already entered context manager when this one exits, passing on any error."""
    try:
        yield
    except BaseException as error:
        if not await context.__aexit__(type(error), error, error.__traceback__):
            raise
    else:
        await context.__aexit__(None, None, None)
