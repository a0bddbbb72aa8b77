"""Handing a run's events to its event stream handler one at a time, the run waiting for each to be taken.

```
run ──emit(e1)──→ [e1] ──→ handler takes e1, asks for the next ──→ run goes on ──emit(e2)──→ ...
                     └── the handler failed or was cancelled instead: emit raises its error in the run
```

The run moves only as fast as the handler reads, as with Pydantic AI's in-line handler: the run goes on past an
event only once the handler has finished with it and asks for the next, so what the handler sees mid-run is where
the run is (`all_messages()` in a `run_stream`), and a handler that stops early stops the run
instead of leaving it to stream into a queue no one reads. A handler that returns without reading everything is
not an error: the rest of the events are taken for it (drained), so the run finishes.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._run_context import RunContext
    from .capabilities import AbstractCapability

__all__ = ('EventHandoff',)

_END = object()


class EventHandoff:
    """Runs an event stream handler in a task and hands it the run's events one by one."""

    def __init__(
        self, handler: Callable[[Any, Any], Any], capability: AbstractCapability[Any], ctx: RunContext[Any]
    ) -> None:
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task = asyncio.ensure_future(self._run(handler, capability, ctx))

    async def emit(self, event: Any) -> None:
        """Hand `event` to the handler and wait until it has taken it.

        Raises:
            BaseException: the handler's error (or `CancelledError`) if it ended before taking the event.
        """
        if self._task.done():
            self._task.result()
            return
        self._queue.put_nowait(event)
        taken = asyncio.ensure_future(self._queue.join())
        try:
            await asyncio.wait({taken, self._task}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not taken.done():
                taken.cancel()
        if not taken.done() or taken.cancelled():
            self._task.result()

    async def finish(self) -> None:
        """Tell the handler that the run has ended and wait for it (re-raising its error, if any).

        A run that is being cancelled takes its handler with it instead of waiting for it to read to the end
        (the handler may be waiting on a reader that has left).
        """
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            self._task.cancel()
            await asyncio.wait({self._task})
            return
        if not self._task.done():
            self._queue.put_nowait(_END)
        await self._task

    def cancel(self) -> None:
        """Stop the handler without waiting (the run is being torn down)."""
        self._task.cancel()

    async def _events(self) -> AsyncIterator[Any]:
        while True:
            event = await self._queue.get()
            if event is _END:
                self._queue.task_done()
                return
            try:
                yield event
            finally:
                # Taken once the handler comes back for the next one (or stops reading): the run stays at this
                # event while the handler works on it.
                self._queue.task_done()

    async def _run(
        self, handler: Callable[[Any, Any], Any], capability: AbstractCapability[Any], ctx: RunContext[Any]
    ) -> None:
        events = self._events()
        stream = capability.wrap_run_event_stream(ctx, stream=events)
        result = handler(ctx, stream)
        if inspect.isawaitable(result):
            await result
        # What the handler left unread is taken for it, so the run does not wait on it.
        async for _ in events:
            pass
