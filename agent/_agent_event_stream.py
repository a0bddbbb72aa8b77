"""`AgentEventStream`: the events of a run, from `Agent.run_stream_events`."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import Any, Generic, Self

from typing_extensions import TypeVar

__all__ = ('AgentEventStream',)

OutputDataT = TypeVar('OutputDataT', default=str, covariant=True)


class AgentEventStream(Generic[OutputDataT]):
    """The events of a run (from `Agent.run_stream_events`), ending with an `AgentRunResultEvent`.

    Enter it to bound the run's lifetime (`async with agent.run_stream_events(...) as events: async for event in
    events`); `anext()` and `aclose()` work too. Leaving early, or `aclose()`, cancels the run and waits for its
    cleanup. Iterating it without entering it (`async for event in agent.run_stream_events(...)`) still works but
    is deprecated, as in Pydantic AI.
    """

    def __init__(self, generator: AsyncIterator[Any]) -> None:
        """Wrap an async iterator of events (closed with the stream); `Agent.run_stream_events` wraps a run.

        Args:
            generator: The events.
        """
        self._setup(generator, None)

    @classmethod
    def _of_run(cls, open_stream: Callable[[], AbstractAsyncContextManager[AsyncIterator[Any]]]) -> Self:
        """A stream whose run starts when it is first entered or read (`open_stream` starts it)."""
        stream = cls.__new__(cls)
        stream._setup(None, open_stream)
        return stream

    def _setup(
        self,
        events: AsyncIterator[Any] | None,
        open_stream: Callable[[], AbstractAsyncContextManager[AsyncIterator[Any]]] | None,
    ) -> None:
        self._open_stream = open_stream
        self._context: AbstractAsyncContextManager[AsyncIterator[Any]] | None = None
        self._events = events
        self._managed = False
        self._closed = False

    async def __aenter__(self) -> AgentEventStream[OutputDataT]:
        self._managed = True
        await self._open()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        context, self._context, already_closed, self._closed = self._context, None, self._closed, True
        if context is not None:
            return await context.__aexit__(exc_type, exc, tb)
        aclose = getattr(self._events, 'aclose', None)
        if aclose is not None and not already_closed:
            await aclose()
        return None

    async def _open(self) -> AsyncIterator[Any]:
        if self._events is None:
            assert self._open_stream is not None
            self._context = self._open_stream()
            self._events = await self._context.__aenter__()
        return self._events

    def __aiter__(self) -> AsyncIterator[Any]:
        if self._managed:
            return self
        warnings.warn(
            'Iterating `AgentEventStream` directly with `async for event in stream:` is deprecated; enter it first '
            '(`async with agent.run_stream_events(...) as stream: async for event in stream: ...`), so that the run '
            'is cleaned up when the block is left.',
            DeprecationWarning,
            stacklevel=2,
        )
        return self._iterate()

    async def __anext__(self) -> Any:
        if self._closed:
            raise StopAsyncIteration
        events = await self._open()
        try:
            return await anext(events)
        except StopAsyncIteration:
            await self.aclose()
            raise

    async def aclose(self) -> None:
        """End the stream: the run is cancelled if it is still going, and its cleanup awaited."""
        if not self._closed:
            await self.__aexit__(None, None, None)

    async def _iterate(self) -> AsyncIterator[Any]:
        # A generator, so that `break` out of a plain `async for` closes the stream (and so ends the run).
        try:
            while True:
                try:
                    event = await self.__anext__()
                except StopAsyncIteration:
                    return
                yield event
        finally:
            await self.aclose()
