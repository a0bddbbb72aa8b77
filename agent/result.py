"""Run results: `FinalResult` (what ends the graph) and the result objects of streamed runs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic

from typing_extensions import TypeVar

from ._parts import ModelMessage, ModelResponse, TextPart, ToolCallPart
from .exceptions import ModelRetry, UserError
from .usage import RunUsage

if TYPE_CHECKING:
    from .output import OutputSchema
    from .run import AgentRunResult

__all__ = ('AgentEventStream', 'FinalResult', 'StreamedRunResult', 'StreamedRunResultSync')

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
    stream and surfaces the text or output of the response that carries the final result.
    """

    def __init__(
        self,
        events: AsyncIterator[Any],
        output_schema: OutputSchema,
        *,
        validate_partial: Callable[[Any], Awaitable[Any]] | None = None,
    ) -> None:
        self._events = events
        self._validate_partial = validate_partial
        self._schema = output_schema
        self._result: AgentRunResult[OutputDataT] | None = None
        self._final_tool: str | None = None
        self._final_seen = False
        self._parts: dict[int, Any] = {}

    @property
    def is_complete(self) -> bool:
        """Whether the run has finished."""
        return self._result is not None

    async def _updates(self) -> AsyncIterator[tuple[str | None, Any]]:
        """Yield `(text_delta, current_final_part)` for every change to the final response."""
        from ._events import FinalResultEvent, PartDeltaEvent, PartStartEvent, TextPartDelta
        from .run import AgentRunResultEvent

        async for event in self._events:
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

    async def stream_text(self, *, delta: bool = False, debounce_by: float | None = None) -> AsyncIterator[str]:
        """Stream the final text output: the growing text, or only the new pieces with `delta=True`.

        Args:
            delta: Yield only the new text of each update instead of the whole text so far.
            debounce_by: Gather the pieces that arrive within this many seconds of the last update into one
                update (`None`, the default, yields every piece as it arrives). Nothing is held back at the end.

        Raises:
            UserError: if the output is not text.
        """
        if not self._schema.allows_text:
            raise UserError('stream_text() needs text output; use stream_output() for structured output.')
        text = ''
        pending = ''
        last_update = -float('inf')
        async for piece, _part in self._updates():
            if piece is _RESET:
                text = pending = ''
                continue
            if not piece:
                continue
            text += piece
            pending += piece
            # The event loop's clock: deterministic where the loop is (a workflow), unlike the system clock.
            now = asyncio.get_running_loop().time()
            if debounce_by is not None and now - last_update < debounce_by:
                continue
            last_update = now
            yield pending if delta else text
            pending = ''
        if pending:
            yield pending if delta else text

    async def stream_output(self, *, debounce_by: float | None = None) -> AsyncIterator[Any]:
        """Stream the output as it grows: text so far, or the partially validated structured output.

        Args:
            debounce_by: Skip the partial outputs that arrive within this many seconds of the last one yielded
                (`None`, the default, yields every one). The final output is always yielded.
        """
        last_update = -float('inf')
        async for piece, part in self._updates():
            if piece is _RESET:
                continue
            if isinstance(part, TextPart):
                # Native/prompted output streams as JSON text, partially validated like tool arguments.
                partial: Any = self._schema.validate_partial_text(part.content)
                if partial is None:
                    continue
            elif isinstance(part, ToolCallPart) and part.tool_name in self._schema.tools:
                partial = self._schema.tools[part.tool_name].validate_partial(part.args)
                if partial is None:
                    continue
            else:
                continue
            if self._validate_partial is not None:
                try:
                    partial = await self._validate_partial(partial)
                except ModelRetry:
                    continue
            # The event loop's clock, as in `stream_text`: deterministic inside a workflow.
            now = asyncio.get_running_loop().time()
            if debounce_by is not None and now - last_update < debounce_by:
                continue
            last_update = now
            yield partial
        if self._result is not None:
            yield self._result.output

    async def get_output(self) -> OutputDataT:
        """Wait for the run to finish and return its (validated) output."""
        async for _ in self._updates():
            pass
        assert self._result is not None, 'the run ended without a result'
        return self._result.output

    def _require_result(self) -> AgentRunResult[OutputDataT]:
        if self._result is None:
            raise UserError('The run has not finished yet; consume the stream (or await get_output()) first.')
        return self._result

    def all_messages(self) -> list[ModelMessage]:
        """All messages of the finished run."""
        return self._require_result().all_messages()

    def new_messages(self) -> list[ModelMessage]:
        """The messages the finished run produced."""
        return self._require_result().new_messages()

    def usage(self) -> RunUsage:
        """Usage of the finished run."""
        return self._require_result().usage()

    @property
    def result(self) -> AgentRunResult[OutputDataT] | None:
        """The run's result, once it has finished."""
        return self._result

    @property
    def response(self) -> ModelResponse:
        """The last model response of the finished run."""
        return self._require_result().response


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

    def stream_text(self, *, delta: bool = False, debounce_by: float | None = None) -> Iterator[str]:
        """Stream the final text output (see `StreamedRunResult.stream_text`)."""
        return self._drain(self._result.stream_text(delta=delta, debounce_by=debounce_by))

    def stream_output(self, *, debounce_by: float | None = None) -> Iterator[OutputDataT]:
        """Stream the output as it grows (see `StreamedRunResult.stream_output`)."""
        return self._drain(self._result.stream_output(debounce_by=debounce_by))

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

    def usage(self) -> RunUsage:
        """Usage of the finished run."""
        return self._result.usage()

    @property
    def response(self) -> ModelResponse:
        """The last model response of the finished run."""
        return self._result.response


class AgentEventStream(Generic[OutputDataT]):
    """The events of a run (from `Agent.run_stream_events`), ending with an `AgentRunResultEvent`.

    Iterate it directly (`async for event in agent.run_stream_events(...)`), or enter it first to bound the
    run's lifetime (`async with agent.run_stream_events(...) as events: async for event in events`).
    Leaving early cancels the run.
    """

    def __init__(self, open_stream: Callable[[], AbstractAsyncContextManager[AsyncIterator[Any]]]) -> None:
        self._open_stream = open_stream
        self._context: AbstractAsyncContextManager[AsyncIterator[Any]] | None = None
        self._events: AsyncIterator[Any] | None = None

    async def __aenter__(self) -> AgentEventStream[OutputDataT]:
        self._context = self._open_stream()
        self._events = await self._context.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        assert self._context is not None
        return await self._context.__aexit__(exc_type, exc, tb)

    def __aiter__(self) -> AsyncIterator[Any]:
        if self._events is not None:
            return self._events
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Any]:
        async with self._open_stream() as events:
            async for event in events:
                yield event


_RESET: Any = object()
"""Marks the start of a new response in `_updates`: text from the previous one was not the final output."""


def _is_final_part(part: Any, tool_name: str | None) -> bool:
    if tool_name is None:
        return isinstance(part, TextPart)
    return isinstance(part, ToolCallPart) and part.tool_name == tool_name
