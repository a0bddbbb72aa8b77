"""`ProcessEventStream`: hands the run's event stream to a function that watches it or rewrites it.

A capability with a `wrap_run_event_stream` hook makes a run stream its events even when no
`event_stream_handler` is given, so the function always sees them. In a durable run the events happen in the
activities, so the hook runs there, between them and the event stream handler: once per activity, with that
activity's events (a model request's streamed events, or one tool call's call and result events), rather than
once per run with all of them.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterable, AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from agent._run_context import RunContext
from agent._tool import AgentDepsT

from ._abstract import AbstractCapability

if TYPE_CHECKING:
    from agent._events import AgentStreamEvent

__all__ = ('ProcessEventStream', 'consume_event_stream')

_END = object()


@dataclass
class ProcessEventStream(AbstractCapability[AgentDepsT]):
    """Gives the run's events to `handler`, in one of two forms.

    - An async function `handler(ctx, stream) -> None` watches: it gets its own copy of the stream, and every
      event also goes on unchanged to the rest of the run's consumers. If it returns early it just stops seeing
      events; if it raises, the run fails with that error.
    - An async generator `handler(ctx, stream)` rewrites: what it yields replaces the stream (events may be
      changed, dropped or added).

    ```python
    async def log_events(ctx: RunContext[None], stream: AsyncIterable[AgentStreamEvent]) -> None:
        async for event in stream:
            print(event.event_kind)

    agent = Agent('openai:gpt-5.2', capabilities=[ProcessEventStream(log_events)])
    ```
    """

    handler: Callable[..., Any]
    """The watching async function or the rewriting async generator function."""

    @classmethod
    def get_serialization_name(cls) -> str | None:
        # Takes a function, which an agent spec cannot express.
        return None

    def _rewrites(self) -> bool:
        # A callable object counts by its `__call__` method.
        call = type(self.handler).__call__ if not inspect.isfunction(self.handler) else None
        return inspect.isasyncgenfunction(self.handler) or inspect.isasyncgenfunction(call)

    async def wrap_run_event_stream(
        self, ctx: RunContext[AgentDepsT], *, stream: AsyncIterable[AgentStreamEvent]
    ) -> AsyncIterator[AgentStreamEvent]:
        if self._rewrites():
            async for event in cast('AsyncIterable[AgentStreamEvent]', self.handler(ctx, stream)):
                yield event
            return
        queue: asyncio.Queue[Any] = asyncio.Queue()

        async def copy() -> AsyncIterator[AgentStreamEvent]:
            while (event := await queue.get()) is not _END:
                yield event

        watcher = asyncio.ensure_future(self.handler(ctx, copy()))
        try:
            async for event in stream:
                if watcher.done() and watcher.exception() is not None:
                    break
                if not watcher.done():
                    queue.put_nowait(event)
                yield event
            queue.put_nowait(_END)
            await watcher
        finally:
            if not watcher.done():
                watcher.cancel()
                await asyncio.gather(watcher, return_exceptions=True)


async def consume_event_stream(ctx: RunContext[Any], stream: AsyncIterable[Any]) -> None:
    """An event stream handler that only reads the stream, so the capabilities' stream hooks run."""
    async for _ in stream:
        pass
