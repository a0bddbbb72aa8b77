"""Run results: `FinalResult` (what ends the graph) and the result objects of streamed runs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic

from pydantic import ValidationError
from typing_extensions import TypeVar

from ._callable_value import callable_value
from ._parts import ModelMessage, ModelResponse, TextPart, ToolCallPart
from ._run_context import RunContext
from ._stream_grouping import group_by_time
from .exceptions import ModelRetry, UserError
from .usage import RunUsage

if TYPE_CHECKING:
    from ._streaming import LiveResponse
    from .models import StreamedResponse
    from .output import OutputSchema
    from .run import AgentRunResult

__all__ = ('AgentEventStream', 'AgentStream', 'FinalResult', 'StreamedRunResult', 'StreamedRunResultSync')

OutputDataT = TypeVar('OutputDataT', default=str, covariant=True)


@dataclass
class FinalResult(Generic[OutputDataT]):
    """The final output of a run, carried by the `End` node that stops the graph."""

    output: OutputDataT
    """The output value."""
    tool_name: str | None = None
    """The output tool that produced it, or `None` for text output."""
    tool_call_id: str | None = None
    """The id of that output tool call, if any."""


class StreamedRunResult(Generic[OutputDataT]):
    """A run whose final output streams as the model generates it (from `Agent.run_stream`).

    The run itself goes on as usual (tools run, outputs are validated); this object follows its event
    stream and surfaces the text or output of the response that carries the final result. `Agent.run_stream`
    hands it over once that response has started (or the run has ended), so `all_messages()`, `run_id` and
    `metadata` already describe the run then; `response` and `usage` grow as the response streams.
    """

    def __init__(
        self,
        events: AsyncIterator[Any],
        output_schema: OutputSchema,
        *,
        validate_partial: Callable[[Any, bool], Awaitable[Any]] | None = None,
        run_context: Callable[[], RunContext[Any] | None] = lambda: None,
        watcher: LiveResponse | None = None,
    ) -> None:
        self._events = events
        self._validate_partial = validate_partial
        self._schema = output_schema
        self._run_context = run_context
        self._watcher = watcher
        self._result: AgentRunResult[OutputDataT] | None = None
        self._final_tool: str | None = None
        self._final_seen = False
        self._parts: dict[int, Any] = {}
        self._ahead: list[Any] = []
        self._cancelled = False
        self._interrupted: ModelResponse | None = None

    async def _start(self) -> None:
        """Follow the run until its final response starts (or the run ends), keeping the events for the streams."""
        from ._events import FinalResultEvent
        from .run import AgentRunResultEvent

        async for event in self._events:
            self._ahead.append(event)
            if isinstance(event, FinalResultEvent | AgentRunResultEvent):
                return

    async def _next_events(self) -> AsyncIterator[Any]:
        while self._ahead:
            yield self._ahead.pop(0)
        if self._cancelled or self._result is not None:
            # Nothing comes after the run's result (and the run's task may be gone by now).
            return
        async for event in self._events:
            yield event

    @property
    def is_complete(self) -> bool:
        """Whether the run has finished (or its stream was cancelled)."""
        return self._result is not None or self._interrupted is not None

    async def _updates(self) -> AsyncIterator[tuple[str | None, Any]]:
        """Yield `(text_delta, current_final_part)` for every change to the final response."""
        from ._events import FinalResultEvent, PartDeltaEvent, PartStartEvent, TextPartDelta
        from .run import AgentRunResultEvent

        async for event in self._next_events():
            if isinstance(event, AgentRunResultEvent):
                self._result = event.result  # pyright: ignore[reportUnknownMemberType]
                return
            if isinstance(event, PartStartEvent):
                if event.index == 0:
                    # A new model response: whatever looked final in the previous one was not.
                    self._parts = {}
                    if self._final_seen:
                        self._final_seen = False
                        yield _RESET, None
                self._parts[event.index] = event.part
                if self._final_seen and _is_final_part(event.part, self._final_tool):
                    yield (
                        (getattr(event.part, 'content', None) if isinstance(event.part, TextPart) else None),
                        event.part,
                    )
            elif isinstance(event, FinalResultEvent):
                self._final_seen = True
                self._final_tool = event.tool_name
                current = next((p for p in self._parts.values() if _is_final_part(p, event.tool_name)), None)
                if current is not None:
                    yield (current.content if isinstance(current, TextPart) else None), current
            elif isinstance(event, PartDeltaEvent) and event.index in self._parts:
                part = event.delta.apply(self._parts[event.index])
                self._parts[event.index] = part
                if self._final_seen and _is_final_part(part, self._final_tool):
                    delta = event.delta.content_delta if isinstance(event.delta, TextPartDelta) else None
                    yield delta, part

    async def stream_text(self, *, delta: bool = False, debounce_by: float | None = 0.1) -> AsyncIterator[str]:
        """Stream the final text output: the growing text, or only the new pieces with `delta=True`.

        Args:
            delta: Yield only the new text of each update instead of the whole text so far. The output validators
                see the whole text so far (as partial output), so they only run without `delta`.
            debounce_by: Gather the pieces that arrive within this many seconds of the first of them into one
                update; `None` yields every piece as it arrives. Nothing is held back at the end.

        Raises:
            UserError: if the output is not text.
        """
        if not self._schema.allows_text:
            raise UserError('stream_text() needs text output; use stream_output() for structured output.')
        text = ''
        async for group in group_by_time(self._text_pieces(), debounce_by):
            pieces = ''.join(group)
            if _RESET_TEXT in pieces:
                text = ''
                pieces = pieces.rpartition(_RESET_TEXT)[2]
                if not pieces:
                    continue
            text += pieces
            if delta:
                yield pieces
            elif self._validate_partial is not None:
                try:
                    yield await self._validate_partial(text, True)
                except ModelRetry:
                    continue
            else:
                yield text

    async def _text_pieces(self) -> AsyncIterator[str]:
        async for piece, _part in self._updates():
            if piece is _RESET:
                yield _RESET_TEXT
            elif piece:
                yield piece

    async def stream_output(self, *, debounce_by: float | None = 0.1) -> AsyncIterator[Any]:
        """Stream the output as it grows: text so far, or the partially validated structured output.

        The output validators see each partial output with `ctx.partial_output=True`; one that raises `ModelRetry`
        skips it. The final output (validated by the run) is always yielded last.

        Args:
            debounce_by: Gather the updates that arrive within this many seconds of the first of them, validating
                only the latest; `None` validates and yields every update.
        """
        last: Any = _RESET
        async for group in group_by_time(self._updates(), debounce_by):
            piece, part = group[-1]
            if piece is _RESET or part is None or part == last:
                continue
            last = part
            partial = self._partial_output(part)
            if partial is None:
                continue
            if self._validate_partial is not None:
                try:
                    partial = await self._validate_partial(partial, True)
                except (ModelRetry, ValidationError):
                    continue
            yield partial
        if self._result is not None:
            yield self._result.output

    def _is_final(self, part: Any) -> bool:
        return _is_final_part(part, self._final_tool)

    def _partial_output(self, part: Any) -> Any | None:
        if isinstance(part, TextPart):
            # Native/prompted output streams as JSON text, partially validated like tool arguments.
            return self._schema.validate_partial_text(part.content)
        if isinstance(part, ToolCallPart) and part.tool_name in self._schema.tools:
            return self._schema.tools[part.tool_name].validate_partial(part.args)
        return None

    async def stream_response(self, *, debounce_by: float | None = 0.1) -> AsyncIterator[ModelResponse]:
        """Stream the final model response as it grows (`state='incomplete'`), then once complete.

        Args:
            debounce_by: Gather the updates that arrive within this many seconds of the first of them into one
                snapshot; `None` yields a snapshot for every update.
        """
        current = self.response
        if current.state == 'incomplete' and any(_has_content(part) for part in current.parts):
            yield current
        async for _ in group_by_time(self._updates(), debounce_by):
            if self._result is None:
                yield self.response
        yield self.response

    async def get_output(self) -> OutputDataT:
        """Wait for the run to finish and return its (validated) output."""
        async for _ in self._updates():
            pass
        assert self._result is not None, 'the run ended without a result'
        return self._result.output

    async def cancel(self) -> None:
        """Stop the run while its final response streams; that response is kept as `state='interrupted'`.

        Cancelling after the run has finished only sets `cancelled`.
        """
        self._cancelled = True
        if self.is_complete:
            return
        stream = self._live_stream()
        if stream is not None:
            await stream.cancel()
        self._interrupted = replace(self.response, state='interrupted')
        aclose = getattr(self._events, 'aclose', None)
        if aclose is not None:
            # Closing the event stream ends the run (the caller's block cancels its task).
            await aclose()

    @property
    def cancelled(self) -> bool:
        """Whether `cancel()` was called."""
        return self._cancelled

    def _live_stream(self) -> StreamedResponse | None:
        watcher = self._watcher
        return watcher.stream if watcher is not None else None

    def _context(self) -> RunContext[Any]:
        ctx = self._run_context()
        if ctx is None:
            raise UserError('The run has not started yet.')
        return ctx

    def all_messages(self) -> list[ModelMessage]:
        """The run's messages: while the final response streams, those before it; then all of them."""
        if self._result is not None:
            return self._result.all_messages()
        messages = list(self._context().messages)
        if self._interrupted is not None:
            messages.append(self._interrupted)
        return messages

    def new_messages(self) -> list[ModelMessage]:
        """The messages of this run (those of `all_messages()` that the run produced)."""
        if self._result is not None:
            return self._result.new_messages()
        run_id = self._context().run_id
        messages = self.all_messages()
        start = next((i for i, m in enumerate(messages) if m.run_id == run_id), len(messages))
        return messages[start:]

    @property
    def usage(self) -> RunUsage:
        """The run's usage so far (including the streaming response's); `usage()` also works."""
        if self._result is not None:
            return callable_value(self._result.usage())
        usage = replace(self._context().usage)
        stream = self._live_stream()
        if stream is not None and stream.get().state != 'complete':
            usage = usage + stream.usage()
            usage.requests += 1
        return callable_value(usage)

    @property
    def result(self) -> AgentRunResult[OutputDataT] | None:
        """The run's result, once it has finished."""
        return self._result

    @property
    def response(self) -> ModelResponse:
        """The final model response: as streamed so far, or complete once the run has finished."""
        if self._result is not None:
            return self._result.response
        if self._interrupted is not None:
            return self._interrupted
        stream = self._live_stream()
        if stream is not None:
            return stream.get()
        return ModelResponse(parts=[self._parts[i] for i in sorted(self._parts)], state='incomplete')

    @property
    def timestamp(self) -> datetime:
        """When the final response started."""
        return self.response.timestamp

    @property
    def run_id(self) -> str:
        """The run's id."""
        run_id = self._result.run_id if self._result is not None else self._context().run_id
        assert run_id is not None
        return run_id

    @property
    def conversation_id(self) -> str:
        """The id of the conversation the run belongs to."""
        ctx = self._run_context()
        conversation_id = ctx.conversation_id if ctx is not None else None
        assert conversation_id is not None
        return conversation_id

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The run's metadata, if any."""
        if self._result is not None:
            return self._result.metadata
        ctx = self._run_context()
        return ctx.metadata if ctx is not None else None


class StreamedRunResultSync(Generic[OutputDataT]):
    """A `StreamedRunResult` driven from synchronous code (from `Agent.run_stream_sync`).

    The run lives on a private event loop, which is closed once the run has finished (the output has been
    read, or a stream consumed to its end).
    """

    def __init__(
        self,
        result: StreamedRunResult[OutputDataT],
        loop: asyncio.AbstractEventLoop,
        context: AbstractAsyncContextManager[Any],
    ) -> None:
        self._result = result
        self._loop = loop
        self._context = context

    def _close(self) -> None:
        if not self._loop.is_closed():
            self._loop.run_until_complete(self._context.__aexit__(None, None, None))
            self._loop.close()

    def _drain(self, stream: AsyncIterator[Any]) -> Iterator[Any]:
        try:
            while True:
                try:
                    item = self._loop.run_until_complete(anext(stream))
                except StopAsyncIteration:
                    break
                yield item
            self._loop.run_until_complete(self._result.get_output())
        finally:
            self._close()

    def stream_text(self, *, delta: bool = False, debounce_by: float | None = 0.1) -> Iterator[str]:
        """Stream the final text output (see `StreamedRunResult.stream_text`)."""
        return self._drain(self._result.stream_text(delta=delta, debounce_by=debounce_by))

    def stream_output(self, *, debounce_by: float | None = 0.1) -> Iterator[OutputDataT]:
        """Stream the output as it grows (see `StreamedRunResult.stream_output`)."""
        return self._drain(self._result.stream_output(debounce_by=debounce_by))

    def stream_response(self, *, debounce_by: float | None = 0.1) -> Iterator[ModelResponse]:
        """Stream the final model response as it grows (see `StreamedRunResult.stream_response`)."""
        return self._drain(self._result.stream_response(debounce_by=debounce_by))

    def get_output(self) -> OutputDataT:
        """Wait for the run to finish and return its output."""
        if self._result.is_complete:
            assert self._result.result is not None
            return self._result.result.output
        try:
            return self._loop.run_until_complete(self._result.get_output())
        finally:
            self._close()

    @property
    def is_complete(self) -> bool:
        """Whether the run has finished."""
        return self._result.is_complete

    def all_messages(self) -> list[ModelMessage]:
        """All messages of the finished run."""
        return self._result.all_messages()

    def new_messages(self) -> list[ModelMessage]:
        """The messages the finished run produced."""
        return self._result.new_messages()

    @property
    def usage(self) -> RunUsage:
        """The run's usage so far; `usage()` also works."""
        return self._result.usage

    @property
    def response(self) -> ModelResponse:
        """The final model response (as streamed so far)."""
        return self._result.response

    @property
    def timestamp(self) -> datetime:
        """When the final response started."""
        return self._result.timestamp

    @property
    def run_id(self) -> str:
        """The run's id."""
        return self._result.run_id

    @property
    def conversation_id(self) -> str:
        """The id of the conversation the run belongs to."""
        return self._result.conversation_id

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The run's metadata, if any."""
        return self._result.metadata


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


_RESET: Any = object()
"""Marks the start of a new response in `_updates`: text from the previous one was not the final output."""

_RESET_TEXT = '\x00reset\x00'
"""`_RESET` among the text pieces of `stream_text`, which are grouped as strings."""


def _is_final_part(part: Any, tool_name: str | None) -> bool:
    if tool_name is None:
        return isinstance(part, TextPart)
    return isinstance(part, ToolCallPart) and part.tool_name == tool_name


def _has_content(part: Any) -> bool:
    return bool(getattr(part, 'content', None) or getattr(part, 'args', None))


# At the end: `AgentStream` builds on `StreamedRunResult`, defined above.
from ._agent_stream import AgentStream  # noqa: E402
