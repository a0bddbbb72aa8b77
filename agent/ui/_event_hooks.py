"""`UIEventHooks`: the overridable hooks and leaf handlers of `UIEventStream`, all yielding nothing by default.

Kept apart from `_event_stream.py`, which drives them, so each module stays short; protocol streams subclass
`UIEventStream` and override what they need from here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Generic

from typing_extensions import TypeVar

from agent._events import (
    FinalResultEvent,
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    OutputToolCallEvent,
    OutputToolResultEvent,
    TextPartDelta,
    ThinkingPartDelta,
    ToolCallPartDelta,
)
from agent._parts import CompactionPart, FilePart, TextPart, ThinkingPart
from agent._tool_parts import NativeToolCallPart, NativeToolReturnPart, ToolCallPart
from agent.run import AgentRunResultEvent

__all__ = ('EventT', 'UIEventHooks')

EventT = TypeVar('EventT')
"""The protocol's event type."""


class UIEventHooks(Generic[EventT]):
    """The turn hooks and the leaf handlers a protocol stream overrides; each is an async generator of events."""

    # ----- hooks -----

    async def before_stream(self) -> AsyncIterator[EventT]:
        """Events to send before any agent event, e.g. a run-started event."""
        return
        yield

    async def after_stream(self) -> AsyncIterator[EventT]:
        """Events to send after the last agent event (always runs, also after an error)."""
        return
        yield

    async def on_error(self, error: Exception) -> AsyncIterator[EventT]:
        """Events that report a failed run; runs after the pending tool calls were closed.

        Args:
            error: The exception that ended the agent's stream.
        """
        return
        yield

    async def before_request(self) -> AsyncIterator[EventT]:
        """Events to send when a request turn (tool calls and their results) starts."""
        return
        yield

    async def after_request(self) -> AsyncIterator[EventT]:
        """Events to send when a request turn ends."""
        return
        yield

    async def before_response(self) -> AsyncIterator[EventT]:
        """Events to send when a response turn (the model streaming parts) starts."""
        return
        yield

    async def after_response(self) -> AsyncIterator[EventT]:
        """Events to send when a response turn ends."""
        return
        yield

    # ----- leaf handlers (the defaults yield nothing) -----

    async def handle_text_start(self, part: TextPart, follows_text: bool = False) -> AsyncIterator[EventT]:
        """A text part starts.

        Args:
            part: The part as first seen (it may already hold text).
            follows_text: The previous part was text too, so a protocol may continue that text (a "text-delta")
                instead of starting a new one (a "text-start").
        """
        return
        yield

    async def handle_text_delta(self, delta: TextPartDelta) -> AsyncIterator[EventT]:
        """More text for the current text part."""
        return
        yield

    async def handle_text_end(self, part: TextPart, followed_by_text: bool = False) -> AsyncIterator[EventT]:
        """A text part ends.

        Args:
            part: The complete part.
            followed_by_text: The next part is text too, so a protocol may hold back its "text-end".
        """
        return
        yield

    async def handle_thinking_start(self, part: ThinkingPart, follows_thinking: bool = False) -> AsyncIterator[EventT]:
        """A thinking part starts.

        Args:
            part: The part as first seen.
            follows_thinking: The previous part was thinking too, so a protocol may send a "thinking-delta"
                instead of a "thinking-start".
        """
        return
        yield

    async def handle_thinking_delta(self, delta: ThinkingPartDelta) -> AsyncIterator[EventT]:
        """More of the current thinking part."""
        return
        yield

    async def handle_thinking_end(
        self, part: ThinkingPart, followed_by_thinking: bool = False
    ) -> AsyncIterator[EventT]:
        """A thinking part ends.

        Args:
            part: The complete part.
            followed_by_thinking: The next part is thinking too, so a protocol may hold back its "thinking-end".
        """
        return
        yield

    async def handle_tool_call_start(self, part: ToolCallPart) -> AsyncIterator[EventT]:
        """A function (or output) tool call starts streaming."""
        return
        yield

    async def handle_tool_call_delta(self, delta: ToolCallPartDelta) -> AsyncIterator[EventT]:
        """More of the current tool call (usually a piece of its JSON arguments)."""
        return
        yield

    async def handle_tool_call_end(self, part: ToolCallPart) -> AsyncIterator[EventT]:
        """A tool call finished streaming (it has not run yet)."""
        return
        yield

    async def handle_builtin_tool_call_start(self, part: NativeToolCallPart) -> AsyncIterator[EventT]:
        """A call to a provider-run (native) tool starts streaming."""
        return
        yield

    async def handle_builtin_tool_call_end(self, part: NativeToolCallPart) -> AsyncIterator[EventT]:
        """A call to a provider-run (native) tool finished streaming."""
        return
        yield

    async def handle_builtin_tool_return(self, part: NativeToolReturnPart) -> AsyncIterator[EventT]:
        """The result of a provider-run (native) tool."""
        return
        yield

    async def handle_file(self, part: FilePart) -> AsyncIterator[EventT]:
        """A file the model produced (e.g. an image)."""
        return
        yield

    async def handle_compaction(self, part: CompactionPart) -> AsyncIterator[EventT]:
        """A compaction of earlier conversation by the provider."""
        return
        yield

    async def handle_final_result(self, event: FinalResultEvent) -> AsyncIterator[EventT]:
        """The model's response holds the final result (text, or a call to an output tool)."""
        return
        yield

    async def handle_function_tool_call(self, event: FunctionToolCallEvent) -> AsyncIterator[EventT]:
        """A function tool is about to run."""
        return
        yield

    async def handle_function_tool_result(self, event: FunctionToolResultEvent) -> AsyncIterator[EventT]:
        """A function tool's result (also a failed result synthesized when the run fails while it is pending)."""
        return
        yield

    async def handle_output_tool_call(self, event: OutputToolCallEvent) -> AsyncIterator[EventT]:
        """The model called an output tool to give its final answer."""
        return
        yield

    async def handle_output_tool_result(self, event: OutputToolResultEvent) -> AsyncIterator[EventT]:
        """An output tool call was handled (also a failed result synthesized when the run fails while it is pending)."""
        return
        yield

    async def handle_run_result(self, event: AgentRunResultEvent[Any]) -> AsyncIterator[EventT]:
        """The run completed (after the completion callback ran)."""
        return
        yield
