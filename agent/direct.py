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
from datetime import datetime
from types import TracebackType

from ._events import ModelResponseStreamEvent
from ._parts import ModelMessage, ModelResponse
from .exceptions import UserError
from .models import KnownModelName, Model, ModelRequestParameters, StreamedResponse, infer_model
from .settings import ModelSettings
from .usage import RequestUsage

__all__ = (
    'StreamedResponseSync',
    'model_request',
    'model_request_stream',
    'model_request_stream_sync',
    'model_request_sync',
)

_STREAM_START_TIMEOUT = 30
"""Seconds a sync stream waits for the model to start answering before giving up."""


async def model_request(
    model: Model | KnownModelName | str,
    messages: Sequence[ModelMessage],
    *,
    model_settings: ModelSettings | None = None,
    model_request_parameters: ModelRequestParameters | None = None,
) -> ModelResponse:
    """Send `messages` to `model` and return its complete response.

    Args:
        model: The model, or its name (`'openai:gpt-5.2'`, `'test'`).
        messages: The conversation to send.
        model_settings: Settings for this request (over the model's own).
        model_request_parameters: Tools and expected output; plain text by default.

    Returns:
        The model's response, with its usage.
    """
    return await infer_model(model).request(
        list(messages), model_settings, model_request_parameters or ModelRequestParameters()
    )


def model_request_sync(
    model: Model | KnownModelName | str,
    messages: Sequence[ModelMessage],
    *,
    model_settings: ModelSettings | None = None,
    model_request_parameters: ModelRequestParameters | None = None,
) -> ModelResponse:
    """`model_request`, run on a fresh event loop.

    Raises:
        UserError: when called from a running event loop (`await model_request(...)` there).
    """
    _refuse_running_loop('model_request_sync')
    return asyncio.run(
        model_request(model, messages, model_settings=model_settings, model_request_parameters=model_request_parameters)
    )


@asynccontextmanager
async def model_request_stream(
    model: Model | KnownModelName | str,
    messages: Sequence[ModelMessage],
    *,
    model_settings: ModelSettings | None = None,
    model_request_parameters: ModelRequestParameters | None = None,
) -> AsyncGenerator[StreamedResponse]:
    """Stream the response of `model` to `messages`: iterate the yielded `StreamedResponse` for events.

    Raises:
        NotImplementedError: the model cannot stream.
    """
    model_instance = infer_model(model)
    params = model_request_parameters or ModelRequestParameters()
    async with model_instance.request_stream(list(messages), model_settings, params) as response:
        yield response


def model_request_stream_sync(
    model: Model | KnownModelName | str,
    messages: Sequence[ModelMessage],
    *,
    model_settings: ModelSettings | None = None,
    model_request_parameters: ModelRequestParameters | None = None,
) -> StreamedResponseSync:
    """`model_request_stream` for synchronous code: use the result in a `with` block and iterate it for events."""
    _refuse_running_loop('model_request_stream_sync')
    stream = model_request_stream(
        model, messages, model_settings=model_settings, model_request_parameters=model_request_parameters
    )
    return StreamedResponseSync(stream)


class StreamedResponseSync:
    """A streamed response for synchronous code; the stream runs on an event loop in a background thread.

    Use it as a context manager; iterating it yields the stream's events as they arrive, and the `response`
    property is the response so far (complete once iteration ends).
    """

    def __init__(self, stream: AbstractAsyncContextManager[StreamedResponse]) -> None:
        """Wrap an async stream (started on entering the `with` block)."""
        self._stream = stream
        self._events: queue.Queue[ModelResponseStreamEvent | BaseException | None] = queue.Queue()
        self._started = threading.Event()
        self._streamed: StreamedResponse | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> StreamedResponseSync:
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
            if isinstance(item, BaseException):
                raise item
            yield item

    async def _produce(self) -> None:
        try:
            async with self._stream as streamed:
                self._streamed = streamed
                self._started.set()
                async for event in streamed:
                    self._events.put(event)
        except Exception as e:
            self._events.put(e)
        finally:
            self._started.set()
            self._events.put(None)

    def _require_context(self) -> StreamedResponse | None:
        if self._thread is None:
            raise UserError('Use the stream in a `with` block: `with model_request_stream_sync(...) as stream:`.')
        return self._streamed

    def _started_stream(self) -> StreamedResponse:
        self._require_context()
        if not self._started.wait(_STREAM_START_TIMEOUT) or self._streamed is None:
            raise UserError('The model stream did not start; iterate the stream to see its error.')
        return self._streamed

    @property
    def response(self) -> ModelResponse:
        """The response so far."""
        return self._started_stream().get()

    def get(self) -> ModelResponse:
        """The response so far (older name of `response`)."""
        return self.response

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
