"""An agent's event stream handler in a durable run: called from the activities, where the events happen.

In-process, `Agent(event_stream_handler=...)` receives the run's events as they happen (text deltas while the
model streams, tool calls and results). A workflow cannot run it: it usually does I/O (pushing to a UI or a
queue), and a workflow only sees a model response once it is complete. So in a durable run the model-request
activity streams the response from the provider and hands the events to the handler as they arrive, and the
tool activity hands it the call and result events of its tool. Each activity calls the handler once with the
events of its own call, in order.

The capabilities' `wrap_run_event_stream` hooks (`ProcessEventStream`) sit between the events and the handler, so
they run here too, once per activity around that activity's events: a watcher sees each model request's and tool
call's events as they happen, and what a rewriter yields is what the handler gets. As in-process, such a hook turns
streaming on even when the agent has no handler. Unlike in-process, where the hook gets one stream for the whole
run, it gets one stream per activity (a run's events happen in several activities, possibly on several workers).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from types import TracebackType
from typing import Any, TypeGuard

from agent._events import FunctionToolCallEvent, FunctionToolResultEvent, whole_response_events
from agent._model_request_context import ModelRequestContext
from agent._parts import ModelResponse, RetryPromptPart, ToolCallPart, ToolReturnPart
from agent._run_context import RunContext
from agent.capabilities import AbstractCapability
from agent.capabilities._process_event_stream import consume_event_stream
from agent.exceptions import ModelRetry

__all__ = ('EventStreamHandler', 'HandlerStream', 'activity_handler', 'streamed_request', 'tool_events')

EventStreamHandler = Callable[[RunContext[Any], AsyncIterator[Any]], Any]

_END = object()


def _wraps_event_stream(capability: AbstractCapability[Any] | None) -> TypeGuard[AbstractCapability[Any]]:
    return capability is not None and 'wrap_run_event_stream' in capability.hook_names()


def activity_handler(
    handler: EventStreamHandler | None, capability: AbstractCapability[Any]
) -> EventStreamHandler | None:
    """The handler an activity streams its events to: `handler`, or a reader if only a capability watches them."""
    if handler is None and _wraps_event_stream(capability):
        return consume_event_stream
    return handler


class HandlerStream:
    """Feeds events to an event stream handler running alongside, and waits for it to finish on exit.

    With `capability`, the events pass through its `wrap_run_event_stream` on their way to the handler.
    """

    def __init__(
        self, handler: EventStreamHandler, ctx: RunContext[Any], capability: AbstractCapability[Any] | None = None
    ) -> None:
        self._handler = handler
        self._ctx = ctx
        self._capability = capability
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    async def _events(self) -> AsyncIterator[Any]:
        while (event := await self._queue.get()) is not _END:
            yield event

    async def _run(self) -> None:
        events: AsyncIterator[Any] = self._events()
        if _wraps_event_stream(self._capability):
            events = aiter(self._capability.wrap_run_event_stream(self._ctx, stream=events))
        result = self._handler(self._ctx, events)
        if inspect.isawaitable(result):
            await result

    async def __aenter__(self) -> HandlerStream:
        self._task = asyncio.ensure_future(self._run())
        return self

    async def put(self, event: Any) -> None:
        """Pass one event to the handler."""
        await self._queue.put(event)

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._task is not None
        await self._queue.put(_END)
        if exc is not None and not isinstance(exc, Exception):
            self._task.cancel()  # cancelled or interrupted: do not wait for the handler
            return
        await self._task  # the handler's own failure fails the activity


def streamed_request(
    ctx: RunContext[Any], events: HandlerStream
) -> Callable[[ModelRequestContext], Awaitable[ModelResponse]]:
    """A model call that streams the response, passing each event on, and returns the complete response.

    Models that cannot stream are asked for the whole response instead: the handler then sees each part start
    whole and end (no deltas), so a page still shows the text and the tool calls as they are made.
    """

    async def call(rc: ModelRequestContext) -> ModelResponse:
        try:
            stream = rc.model.request_stream(
                rc.messages, rc.model_settings, rc.model_request_parameters, run_context=ctx
            )
            async with stream as streamed:
                async for event in streamed:
                    await events.put(event)
                return streamed.get()
        except NotImplementedError:
            pass  # the model cannot stream
        response = await rc.model.request(rc.messages, rc.model_settings, rc.model_request_parameters)
        for event in whole_response_events(response):
            await events.put(event)
        return response

    return call


async def tool_events(events: HandlerStream, call: ToolCallPart, execute: Callable[[], Awaitable[Any]]) -> Any:
    """Run a tool, passing its call event before and its result event after (a retry prompt if it asked for one)."""
    await events.put(FunctionToolCallEvent(call))
    try:
        result = await execute()
    except ModelRetry as retry:
        part = RetryPromptPart(retry.message, tool_name=call.tool_name, tool_call_id=call.tool_call_id)
        await events.put(FunctionToolResultEvent(part))
        raise
    await events.put(FunctionToolResultEvent(ToolReturnPart(call.tool_name, result, call.tool_call_id)))
    return result
