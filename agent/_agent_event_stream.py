"""`AgentEventStream`: the events of a run, from `Agent.run_stream_events`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import Any, Generic

from typing_extensions import TypeVar

__all__ = ('AgentEventStream',)

OutputDataT = TypeVar('OutputDataT', default=str, covariant=True)


class AgentEventStream(Generic[OutputDataT]):
    """The events of a run (from `Agent.run_stream_events`), ending with an `AgentRunResultEvent`.

    Enter it to bound the run's lifetime (`async with agent.run_stream_events(...) as events: async for event in
    events`), or iterate it directly (`async for event in agent.run_stream_events(...)`); `anext()` and `aclose()`
    work too. Leaving early, or `aclose()`, cancels the run and waits for its cleanup.
    """

    def __init__(self, open_stream: Callable[[], AbstractAsyncContextManager[AsyncIterator[Any]]]) -> None:
        self._open_stream = open_stream
        self._context: AbstractAsyncContextManager[AsyncIterator[Any]] | None = None
        self._events: AsyncIterator[Any] | None = None
        self._managed = False
        self._closed = False

    async def __aenter__(self) -> AgentEventStream[OutputDataT]:
        self._managed = True
        await self._open()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        context, self._context, self._closed = self._context, None, True
        if context is None:
            return None
        return await context.__aexit__(exc_type, exc, tb)

    async def _open(self) -> AsyncIterator[Any]:
        if self._events is None:
            self._context = self._open_stream()
            self._events = await self._context.__aenter__()
        return self._events

    def __aiter__(self) -> AsyncIterator[Any]:
        if self._managed:
            return self
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
