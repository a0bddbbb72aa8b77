"""Running an agent in a task and handing its events to the caller (`run_stream_events`, `run_stream`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from ._events import AgentStreamEvent
from ._run_context import RunContext
from .run import AgentRunResultEvent

if TYPE_CHECKING:
    from .agent import Agent

__all__ = ('event_stream',)


@asynccontextmanager
async def event_stream(
    agent: Agent[Any, Any], user_prompt: Any, ctx_holder: list[RunContext[Any]], **kwargs: Any
) -> AsyncGenerator[AsyncIterator[AgentStreamEvent | AgentRunResultEvent[Any]], None]:
    """Run `agent` in a task, handing its events (then its result) to the consumer.

    The run's context is appended to `ctx_holder` when its first event stream starts. Leaving the block
    before the run ends cancels it.
    """
    queue: asyncio.Queue[Any] = asyncio.Queue()
    done = object()

    async def forward(ctx: RunContext[Any], stream: AsyncIterator[AgentStreamEvent]) -> None:
        ctx_holder.append(ctx)
        async for event in stream:
            await queue.put(event)

    async def runner() -> None:
        try:
            result = await agent.run(user_prompt, event_stream_handler=forward, **kwargs)
            last: Any = AgentRunResultEvent(result)
        except asyncio.CancelledError:
            # The consumer left the block: nobody reads the (bounded) queue any more, so putting would hang.
            raise
        except BaseException as exc:  # handed to the consumer, who re-raises it
            last = _Failure(exc)
        await queue.put(last)
        await queue.put(done)

    task = asyncio.create_task(runner())

    async def events() -> AsyncIterator[AgentStreamEvent | AgentRunResultEvent[Any]]:
        while (item := await queue.get()) is not done:
            if isinstance(item, _Failure):
                raise item.error
            yield item

    try:
        yield events()
    finally:
        if not task.done():
            task.cancel()
        await asyncio.gather(task, return_exceptions=True)


class _Failure:
    def __init__(self, error: BaseException) -> None:
        self.error = error
