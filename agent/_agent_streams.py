"""Running an agent in a task and handing its events to the caller (`run_stream_events`, `run_stream`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ._delegation import redirected
from ._events import AgentStreamEvent, FinalResultEvent
from ._finished_run import finished_events
from ._output_schema import OutputSchema, OutputValidator
from ._run_context import RunContext
from ._streaming import LiveResponse, live_response
from .result import StreamedRunResult
from .run import AgentRunResultEvent

if TYPE_CHECKING:
    from .agent import Agent

__all__ = ('event_stream', 'streamed_run')


@asynccontextmanager
async def event_stream(
    agent: Agent[Any, Any],
    user_prompt: Any,
    ctx_holder: list[RunContext[Any]],
    *,
    handler_until_final_result: bool = False,
    **kwargs: Any,
) -> AsyncGenerator[AsyncIterator[AgentStreamEvent | AgentRunResultEvent[Any]], None]:
    """Run `agent` in a task, handing its events (then its result) to the consumer.

    The run's context is appended to `ctx_holder` when its first event stream starts. An `event_stream_handler`
    (the call's, or else the agent's) sees the events too, each before the consumer does; with
    `handler_until_final_result` (`run_stream`) its stream ends with the first `FinalResultEvent`, the rest being
    the consumer's to stream. The run goes on past an
    event only once the consumer asks for the next one, so between two events it shows where the consumer is.
    Leaving the block before the run ends cancels it.
    """
    if (finished := await redirected(agent, user_prompt, kwargs)) is not None:
        # A child run of the durable run, over by now: its events happened there (see `agent._finished_run`).
        yield finished_events(finished)
        return
    # One event at a time: the run waits for the consumer, so what it shows mid-run (e.g. `all_messages()` of a
    # `run_stream` result) is where the consumer is, not wherever the run has raced ahead to.
    queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=1)
    done = object()
    # The agent's own handler is replaced by `forward` for this run, so `forward` calls it.
    handler = kwargs.pop('event_stream_handler', None) or getattr(agent, '_event_stream_handler', None)

    async def forward(ctx: RunContext[Any], stream: AsyncIterator[AgentStreamEvent]) -> None:
        if not ctx_holder:
            ctx_holder.append(ctx)

        async def passed_on() -> AsyncGenerator[AgentStreamEvent]:
            async for event in stream:
                yield event
                # Until the consumer asks for the next event, the run stays at this one (see `events`).
                await queue.put(event)
                await queue.join()

        async def until_final_result() -> AsyncGenerator[AgentStreamEvent]:
            # Returning here leaves `events` open: what follows is drained below, for the consumer.
            async for event in events:
                yield event
                if isinstance(event, FinalResultEvent):
                    return

        events = passed_on()
        try:
            if handler is not None:
                await handler(ctx, until_final_result() if handler_until_final_result else events)
            # What the handler left unread still reaches the consumer.
            async for _ in events:
                pass
        finally:
            await events.aclose()  # closed here, not by the garbage collector in some later task

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
            try:
                yield item
            finally:
                # Asking for the next event (or leaving) is what lets the run go on past this one.
                queue.task_done()

    try:
        yield events()
    finally:
        if not task.done():
            task.cancel()
        await asyncio.gather(task, return_exceptions=True)


class _Failure:
    def __init__(self, error: BaseException) -> None:
        self.error = error


@asynccontextmanager
async def streamed_run(
    agent: Agent[Any, Any],
    user_prompt: Any,
    schema: OutputSchema,
    validators: Sequence[OutputValidator],
    **kwargs: Any,
) -> AsyncGenerator[StreamedRunResult[Any], None]:
    """Run `agent` in a task and hand over its `StreamedRunResult` once the final response starts streaming.

    The run's task is started with a `LiveResponse` watcher in its context, so the result can show the final
    response (its model name, usage, ...) while it streams.
    """
    ctx_holder: list[RunContext[Any]] = []
    watcher = LiveResponse()

    async def validate_partial(output: Any, partial: bool) -> Any:
        # The streams pass output they show on the way with `partial=True` (`ctx.partial_output`).
        ctx = replace(ctx_holder[0], partial_output=partial)
        for validator in validators:
            output = await validator.validate(output, ctx)
        return output

    token = live_response.set(watcher)
    try:
        async with event_stream(agent, user_prompt, ctx_holder, handler_until_final_result=True, **kwargs) as events:
            live_response.reset(token)
            result = StreamedRunResult[Any](
                events,
                schema,
                validate_partial=validate_partial,
                run_context=lambda: ctx_holder[0] if ctx_holder else None,
                watcher=watcher,
            )
            await result._start()  # pyright: ignore[reportPrivateUsage]
            yield result
    finally:
        if live_response.get() is watcher:
            live_response.reset(token)
