"""Direct model requests: one request to a model, without an agent (no tools run, no retries, no output types).

```python
from agent.direct import model_request_sync
from agent.messages import ModelRequest

response = model_request_sync('test', [ModelRequest.user_text_prompt('What is the capital of France?')])
print(response.parts[0])
```

The messages go to the model as they are; instructions are the last request's `instructions`. Streams give
`ModelResponseStreamEvent`s; the sync variants run the request on an event loop of their own (in a thread for the
stream), so they must not be called from a running event loop.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import AsyncGenerator, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType

from ._agent import Agent
from ._events import ModelResponseStreamEvent
from ._parts import ModelMessage, ModelResponse
from .exceptions import UserError
from .models import KnownModelName, Model, ModelRequestParameters, StreamedResponse, infer_model
from .models.instrumented import InstrumentationSettings, instrument_model
from .settings import ModelSettings
from .usage import RequestUsage

__all__ = (
    'StreamedResponseSync',
    'model_request',
    'model_request_stream',
    'model_request_stream_sync',
    'model_request_sync',
)

STREAM_INITIALIZATION_TIMEOUT = 30
"""Seconds a sync stream waits for the model to start answering before giving up."""


async def model_request(
    model: Model | KnownModelName | str,
    messages: Sequence[ModelMessage],
    *,
    model_settings: ModelSettings | None = None,
    model_request_parameters: ModelRequestParameters | None = None,
    instrument: InstrumentationSettings | bool | None = None,
) -> ModelResponse:
    """Send `messages` to `model` and return its complete response.

    Args:
        model: The model, or its name (`'openai:gpt-5.2'`, `'test'`).
        messages: The conversation to send.
        model_settings: Settings for this request (over the model's own).
        model_request_parameters: Tools and expected output; plain text by default.
        instrument: Whether to trace the request with OpenTelemetry (`InstrumentationSettings` to say how);
            `None` follows `Agent.instrument_all`.

    Returns:
        The model's response, with its usage.
    """
    return await _prepare_model(model, instrument).request(
        list(messages), model_settings, model_request_parameters or ModelRequestParameters()
    )


def model_request_sync(
    model: Model | KnownModelName | str,
    messages: Sequence[ModelMessage],
    *,
    model_settings: ModelSettings | None = None,
    model_request_parameters: ModelRequestParameters | None = None,
    instrument: InstrumentationSettings | bool | None = None,
) -> ModelResponse:
    """`model_request`, run on a fresh event loop.

    Raises:
        UserError: when called from a running event loop (`await model_request(...)` there).
    """
    _refuse_running_loop('model_request_sync')
    return asyncio.run(
        model_request(
            model,
            messages,
            model_settings=model_settings,
            model_request_parameters=model_request_parameters,
            instrument=instrument,
        )
    )


@asynccontextmanager
async def model_request_stream(
    model: Model | KnownModelName | str,
    messages: Sequence[ModelMessage],
    *,
    model_settings: ModelSettings | None = None,
    model_request_parameters: ModelRequestParameters | None = None,
    instrument: InstrumentationSettings | bool | None = None,
) -> AsyncGenerator[StreamedResponse]:
    """Stream the response of `model` to `messages`: iterate the yielded `StreamedResponse` for events.

    Raises:
        NotImplementedError: the model cannot stream.
    """
    model_instance = _prepare_model(model, instrument)
    params = model_request_parameters or ModelRequestParameters()
    async with model_instance.request_stream(list(messages), model_settings, params) as response:
        yield response


def model_request_stream_sync(
    model: Model | KnownModelName | str,
    messages: Sequence[ModelMessage],
    *,
    model_settings: ModelSettings | None = None,
    model_request_parameters: ModelRequestParameters | None = None,
    instrument: InstrumentationSettings | bool | None = None,
) -> StreamedResponseSync:
    """`model_request_stream` for synchronous code: use the result in a `with` block and iterate it for events."""
    _refuse_running_loop('model_request_stream_sync')
    stream = model_request_stream(
        model,
        messages,
        model_settings=model_settings,
        model_request_parameters=model_request_parameters,
        instrument=instrument,
    )
    return StreamedResponseSync(_async_stream_cm=stream)


def _prepare_model(model: Model | KnownModelName | str, instrument: InstrumentationSettings | bool | None) -> Model:
    """The model a direct request goes to: `model` resolved, and wrapped for tracing when `instrument` (or, when it
    is `None`, `Agent.instrument_all`) asks for it."""
    model_instance = infer_model(model)
    if instrument is None:
        instrument = Agent._instrument_default  # pyright: ignore[reportPrivateUsage]
    return instrument_model(model_instance, instrument)


@dataclass(repr=False)
class StreamedResponseSync:
    """A streamed response for synchronous code; the stream runs on an event loop in a background thread.

    Use it as a context manager; iterating it yields the stream's events as they arrive, and the `response`
    property is the response so far (complete once iteration ends).
    """

    _async_stream_cm: AbstractAsyncContextManager[StreamedResponse]
    """The async stream, entered in the background thread on entering the `with` block."""
    _events: queue.Queue[ModelResponseStreamEvent | Exception | None] = field(
        default_factory=queue.Queue[ModelResponseStreamEvent | Exception | None], init=False
    )
    _started: threading.Event = field(default_factory=threading.Event, init=False)
    _streamed: StreamedResponse | None = field(default=None, init=False)
    _thread: threading.Thread | None = field(default=None, init=False)
    _context_entered: bool = field(default=False, init=False)

    def __enter__(self) -> StreamedResponseSync:
        self._context_entered = True
        self._thread = threading.Thread(target=asyncio.run, args=(self._produce(),), daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._thread is not None:
            # The producer never blocks (the queue is unbounded), so this returns once the model's stream ends.
            self._thread.join()

    def __iter__(self) -> Iterator[ModelResponseStreamEvent]:
        self._require_context()
        while (item := self._events.get()) is not None:
            if isinstance(item, Exception):
                raise item
            yield item

    def __repr__(self) -> str:
        if self._streamed is not None:
            return repr(self._streamed)
        return f'{type(self).__name__}(context_entered={self._context_entered})'

    async def _produce(self) -> None:
        try:
            async with self._async_stream_cm as streamed:
                self._streamed = streamed
                self._started.set()
                async for event in streamed:
                    self._events.put(event)
        except Exception as e:
            self._events.put(e)
        finally:
            # Set on failure too, so a reader waiting for the stream to start is not left waiting.
            self._started.set()
            self._events.put(None)

    def _require_context(self) -> None:
        if not self._context_entered:
            raise RuntimeError(
                'StreamedResponseSync must be used as a context manager. '
                'Use: `with model_request_stream_sync(...) as stream:`'
            )

    def _started_stream(self) -> StreamedResponse:
        self._require_context()
        if not self._started.wait(STREAM_INITIALIZATION_TIMEOUT):
            raise RuntimeError('Stream failed to initialize within timeout')
        if self._streamed is None:
            raise RuntimeError('Stream failed to initialize; iterate the stream to see its error')
        return self._streamed

    @property
    def response(self) -> ModelResponse:
        """The response so far."""
        return self._started_stream().get()

    def get(self) -> ModelResponse:
        """The response so far (older name of `response`)."""
        return self.response

    @property
    def usage(self) -> RequestUsage:
        """The usage so far."""
        return self._started_stream().usage()

    @property
    def model_name(self) -> str:
        """The name of the model answering."""
        return self._started_stream().model_name

    @property
    def provider_name(self) -> str | None:
        """The provider answering, if known."""
        return self._started_stream().provider_name

    @property
    def timestamp(self) -> datetime:
        """When the response started."""
        return self._started_stream().timestamp


def _refuse_running_loop(name: str) -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise UserError(f'{name}() cannot be called from a running event loop; use the async function there.')
