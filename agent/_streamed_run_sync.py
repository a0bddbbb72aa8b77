"""`StreamedRunResultSync`: a streamed run read from synchronous code (from `Agent.run_stream_sync`).

A streamed run is a few asyncio tasks (the run, the handoff of its events) that the `StreamedRunResult` reads
from. Synchronous code reads it between its own statements, so those tasks need a loop that outlives each call
yet is not tied to the caller's thread: the caller may run other loops in between (`asyncio.run`, an async test),
and a loop that is only run now and then leaves its tasks to the garbage collector when the caller walks away.
So each synchronous stream gets its own loop in a daemon thread (a `_Portal`):

```
caller thread                          portal thread (its own loop)
run_stream_sync() ── submit(enter) ──→ run starts, final response begins
for text in stream_text(): next() ──→ one update of the stream
get_output() / stream ends ──────────→ the run's block is left; the loop stops, the thread ends
result dropped unread ──(finalizer)──→ the run's block is left (the run cancelled); the loop stops
```

Each call waits for its coroutine; between calls the run waits for its reader (events are handed over one at a
time), so what the result shows between calls is where the reader is. A dropped result never leaves pending tasks
behind: its finalizer only schedules the exit on the portal's loop, which cancels the run and stops the thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import weakref
from collections.abc import AsyncIterator, Awaitable, Coroutine, Iterator
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from typing_extensions import deprecated

from ._callable_value import callable_value
from ._parts import ModelMessage, ModelResponse
from .usage import RunUsage

if TYPE_CHECKING:
    from ._streamed_run_result import StreamedRunResult

__all__ = ('StreamedRunResultSync',)

OutputDataT = TypeVar('OutputDataT', covariant=True)
T = TypeVar('T')


class _Portal:
    """An event loop running in a daemon thread, to which synchronous code hands coroutines one at a time."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name='agent-run-stream-sync', daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()

    @property
    def open(self) -> bool:
        return self._thread.is_alive() and not self.loop.is_closed()

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the portal's loop and wait for its result (or error)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def close(self, context: AbstractAsyncContextManager[Any] | None) -> None:
        """Leave `context` on the loop (ending the run), then stop the loop and wait for the thread."""
        if not self.open:
            return
        try:
            if context is not None:
                self.call(context.__aexit__(None, None, None))
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join()


async def _awaited(awaitable: Awaitable[T]) -> T:
    return await awaitable


def _abandon(portal: _Portal, context: AbstractAsyncContextManager[Any] | None) -> None:
    """Finalizer of a dropped result: end its run and stop its loop without waiting (it may run inside the GC)."""
    if not portal.open:
        return

    async def leave() -> None:
        try:
            if context is not None:
                await context.__aexit__(None, None, None)
        finally:
            portal.loop.stop()

    def begin() -> None:
        portal.loop.create_task(leave())

    with contextlib.suppress(RuntimeError):  # the loop closed in the meantime
        portal.loop.call_soon_threadsafe(begin)


class StreamedRunResultSync(Generic[OutputDataT]):
    """A `StreamedRunResult` read from synchronous code (from `Agent.run_stream_sync`).

    Its streams are plain iterators; leaving one early (a `break`) keeps the run where it is, so `get_output()`
    can still finish it. The run's loop and thread end once the run has finished, or when the result is dropped.
    """

    def __init__(self, streamed_run_result: StreamedRunResult[OutputDataT]) -> None:
        """Wrap a `StreamedRunResult`; `Agent.run_stream_sync` also hands over the loop the run lives on.

        Args:
            streamed_run_result: The result to read. A result built by hand (or already finished) needs no loop.
        """
        self._streamed_run_result = streamed_run_result
        self._portal: _Portal | None = None
        self._context: AbstractAsyncContextManager[Any] | None = None

    @classmethod
    def _start(cls, open_stream: AbstractAsyncContextManager[StreamedRunResult[Any]]) -> StreamedRunResultSync[Any]:
        """Enter `open_stream` (a `run_stream` block) on a new portal and wrap the result it gives."""
        portal = _Portal()
        try:
            result = portal.call(open_stream.__aenter__())
        except BaseException:
            portal.close(None)
            raise
        sync = cls(result)
        sync._portal, sync._context = portal, open_stream
        weakref.finalize(sync, _abandon, portal, open_stream).atexit = False
        return sync

    def _call(self, awaitable: Awaitable[T]) -> T:
        portal = self._portal
        if portal is not None and portal.open:
            return portal.call(_awaited(awaitable))
        return asyncio.run(_awaited(awaitable))

    def _finish(self) -> None:
        """End the run's block and its loop once the run is over (or failed)."""
        portal, self._portal = self._portal, None
        if portal is not None:
            portal.close(self._context)

    def _iterate(self, stream: AsyncIterator[T]) -> Iterator[T]:
        while True:
            try:
                item = self._call(anext(stream))
            except StopAsyncIteration:
                break
            except BaseException:
                self._finish()
                raise
            yield item
        if self._streamed_run_result.is_complete:
            self._finish()

    def all_messages(self, *, output_tool_return_content: str | None = None) -> list[ModelMessage]:
        """The run's messages (see `StreamedRunResult.all_messages`)."""
        return self._streamed_run_result.all_messages(output_tool_return_content=output_tool_return_content)

    def all_messages_json(self, *, output_tool_return_content: str | None = None) -> bytes:
        """`all_messages()` as JSON bytes."""
        return self._streamed_run_result.all_messages_json(output_tool_return_content=output_tool_return_content)

    def new_messages(self, *, output_tool_return_content: str | None = None) -> list[ModelMessage]:
        """The messages this run produced (see `StreamedRunResult.new_messages`)."""
        return self._streamed_run_result.new_messages(output_tool_return_content=output_tool_return_content)

    def new_messages_json(self, *, output_tool_return_content: str | None = None) -> bytes:
        """`new_messages()` as JSON bytes."""
        return self._streamed_run_result.new_messages_json(output_tool_return_content=output_tool_return_content)

    def stream_output(self, *, debounce_by: float | None = 0.1) -> Iterator[OutputDataT]:
        """Stream the output as it grows (see `StreamedRunResult.stream_output`)."""
        return self._iterate(self._streamed_run_result.stream_output(debounce_by=debounce_by))

    def stream_text(self, *, delta: bool = False, debounce_by: float | None = 0.1) -> Iterator[str]:
        """Stream the final text output (see `StreamedRunResult.stream_text`)."""
        return self._iterate(self._streamed_run_result.stream_text(delta=delta, debounce_by=debounce_by))

    def stream_response(self, *, debounce_by: float | None = 0.1) -> Iterator[ModelResponse]:
        """Stream the final model response as it grows (see `StreamedRunResult.stream_response`)."""
        return self._iterate(self._streamed_run_result.stream_response(debounce_by=debounce_by))

    @deprecated('`stream_responses()` is deprecated; use `stream_response()` and check `response.state`.')
    def stream_responses(self, *, debounce_by: float | None = 0.1) -> Iterator[tuple[ModelResponse, bool]]:
        """Stream `(response, is_last)` pairs; `stream_response()` replaces it."""
        for response in self.stream_response(debounce_by=debounce_by):
            yield response, response.state != 'incomplete'

    def get_output(self) -> OutputDataT:
        """Wait for the run to finish and return its output."""
        try:
            return self._call(self._streamed_run_result.get_output())
        finally:
            if self._streamed_run_result.is_complete:
                self._finish()

    def validate_response_output(self, message: ModelResponse, *, allow_partial: bool = False) -> OutputDataT:
        """Validate the output a (partial) response carries (see `StreamedRunResult.validate_response_output`)."""
        return self._call(self._streamed_run_result.validate_response_output(message, allow_partial=allow_partial))

    @property
    def is_complete(self) -> bool:
        """Whether the run has finished."""
        return self._streamed_run_result.is_complete

    @property
    def usage(self) -> RunUsage:
        """The run's usage so far; `usage()` also works."""
        return callable_value(self._streamed_run_result.usage)

    @property
    def response(self) -> ModelResponse:
        """The final model response (as streamed so far)."""
        return self._streamed_run_result.response

    @property
    def timestamp(self) -> datetime:
        """When the final response started; `timestamp()` also works."""
        return self._streamed_run_result.timestamp

    @property
    def run_id(self) -> str:
        """The run's id."""
        return self._streamed_run_result.run_id

    @property
    def conversation_id(self) -> str:
        """The id of the conversation the run belongs to."""
        return self._streamed_run_result.conversation_id

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The run's metadata, if any."""
        return self._streamed_run_result.metadata
