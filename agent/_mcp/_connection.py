"""One live MCP client session, held open by a background task.

The MCP SDK's transports and `ClientSession` are anyio context managers with task groups inside: they must be
exited by the task that entered them. An agent run, a test or a worker activity that enters a server is not
necessarily the task that leaves it (two concurrent runs share a server; a worker's pool enters a server in one
activity and closes it at shutdown), so the contexts are entered and exited by a task of their own. Callers only
send requests through the session, which works from any task.

The session's read stream is watched for its end, so a dead server process or a dropped HTTP stream is visible
(`closed`) before the next request is attempted.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import Any, Generic, TypeVar

import anyio
import mcp_types
from mcp.client.session import ClientSession

__all__ = ('Connection', 'unwrap_group')

_T = TypeVar('_T')


class _WatchedReadStream(Generic[_T]):
    """Passes a transport's read stream through, and notes when it ends."""

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    @property
    def last_context(self) -> Any:
        # The HTTP transports attach the sender's context to each message; the dispatcher reads it from here.
        return getattr(self._inner, 'last_context', None)

    async def receive(self) -> _T:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_end()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _WatchedReadStream[_T]:
        return self

    async def __anext__(self) -> _T:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _WatchedReadStream[_T]:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def unwrap_group(error: BaseException) -> BaseException:
    """The single error inside (nested) exception groups, so a failed connect reads as its cause."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        error = error.exceptions[0]  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return error  # pyright: ignore[reportUnknownVariableType]


SessionFactory = Callable[[Any, Any], ClientSession]
"""Builds the client session over a transport's (read, write) streams."""


class Connection:
    """A connected, initialized client session and the task that keeps it open."""

    def __init__(self) -> None:
        self.session: ClientSession | None = None
        """The session, once initialized."""
        self.result: mcp_types.InitializeResult | None = None
        """What the server sent during initialization."""
        self.closed = False
        """Whether the transport has ended (the server went away) or the connection was closed."""
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @classmethod
    async def open(
        cls,
        streams: Callable[[], AbstractAsyncContextManager[Any]],
        make_session: SessionFactory,
        *,
        time_limit: float,
        after_initialize: Callable[[ClientSession, mcp_types.InitializeResult], Awaitable[None]],
    ) -> Connection:
        """Connect, initialize the session and return the open connection.

        Args:
            streams: Opens the transport, yielding its (read, write) streams.
            make_session: Builds the session over the streams.
            time_limit: Seconds allowed for connecting and initializing.
            after_initialize: Runs once the session is initialized (e.g. to set the log level).

        Raises:
            TimeoutError: If connecting and initializing took longer than `time_limit`.
        """
        connection = cls()
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        holder = connection._hold(streams, make_session, time_limit, after_initialize, ready)
        connection._task = asyncio.create_task(holder)
        try:
            await asyncio.shield(ready)
        except BaseException:
            # A failed connect has already ended the task; a cancelled caller must not leave it running.
            await connection.close()
            raise
        return connection

    async def _hold(
        self,
        streams: Callable[[], AbstractAsyncContextManager[Any]],
        make_session: SessionFactory,
        time_limit: float,
        after_initialize: Callable[[ClientSession, mcp_types.InitializeResult], Awaitable[None]],
        ready: asyncio.Future[None],
    ) -> None:
        try:
            # One scope around everything (anyio scopes must nest), with the deadline lifted once connected.
            with anyio.CancelScope(deadline=anyio.current_time() + time_limit) as scope:
                async with streams() as (read, write):
                    watched = _WatchedReadStream[Any](read, self._mark_closed)
                    async with make_session(watched, write) as session:
                        result = await session.initialize()
                        await after_initialize(session, result)
                        self.session, self.result = session, result
                        scope.deadline = math.inf
                        ready.set_result(None)
                        await self._stop.wait()
            if scope.cancelled_caught and not ready.done():
                ready.set_exception(TimeoutError(f'The MCP server did not initialize within {time_limit} seconds'))
        except Exception as error:
            if not ready.done():
                ready.set_exception(unwrap_group(error))
        finally:
            self.closed = True
            if not ready.done():
                ready.set_exception(ConnectionError('The MCP connection ended before it was initialized'))

    def _mark_closed(self) -> None:
        self.closed = True

    async def close(self) -> None:
        """Close the session and the transport (stopping a server process), and wait until they are closed."""
        self.closed = True
        self._stop.set()
        if self._task is not None:
            task, self._task = self._task, None
            if self.session is None:
                # Still connecting: nothing to shut down gracefully, and waiting could take the whole timeout.
                task.cancel()
            await asyncio.wait([task])
