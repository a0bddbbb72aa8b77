"""Run results: `FinalResult` (what ends the graph) and the result objects of streamed runs."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic

from typing_extensions import TypeVar

from ._parts import ModelMessage, TextPart, ToolCallPart
from .exceptions import ModelRetry, UserError
from .usage import RunUsage

if TYPE_CHECKING:
    from .output import OutputSchema
    from .run import AgentRunResult

__all__ = ('FinalResult', 'StreamedRunResult')

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

    async def stream_text(self, *, delta: bool = False) -> AsyncIterator[str]:
        """Stream the final text output: the growing text, or only the new pieces with `delta=True`.

        Raises:
            UserError: if the output is not text.
        """
        if not self._schema.allows_text:
            raise UserError('stream_text() needs text output; use stream_output() for structured output.')
        text = ''
        async for piece, _part in self._updates():
            if piece is _RESET:
                text = ''
                continue
            if not piece:
                continue
            text += piece
            yield piece if delta else text

    async def stream_output(self) -> AsyncIterator[Any]:
        """Stream the output as it grows: text so far, or the partially validated structured output."""
        async for piece, part in self._updates():
            if piece is _RESET:
                continue
            if isinstance(part, TextPart):
                partial: Any = part.content
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


_RESET: Any = object()
"""Marks the start of a new response in `_updates`: text from the previous one was not the final output."""


def _is_final_part(part: Any, tool_name: str | None) -> bool:
    if tool_name is None:
        return isinstance(part, TextPart)
    return isinstance(part, ToolCallPart) and part.tool_name == tool_name
