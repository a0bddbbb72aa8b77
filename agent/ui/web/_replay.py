"""A turn's messages as the events that show them, and what a stream has shown of a turn so far.

A backend's live events are best effort (the durable backend's travel from the worker to the chat server and may
never arrive), but the messages a turn produced are not. Two uses follow:

- `message_events` turns messages back into the events a UI stream renders (each response part whole, as a start
  and an end, and each tool result), for a stream that must show a stretch of a turn it has no live events of;
- `ShownParts` watches a stream's events and, when the turn ends, gives the events of the turn's responses that
  the stream did not show, so the page gets the answer's text even when no live event arrived.

A response counts as shown when the stream showed a run of part starts that fits it (same part kinds at the same
indexes, the same tool call ids, text that the final text starts with); responses are matched in order. A response
partly shown is left alone: adding it whole would duplicate what the page already has.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

from agent._events import (
    FunctionToolResultEvent,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    ToolCallEvent,
    ToolResultEvent,
    whole_response_events,
)
from agent._part_deltas import TextPartDelta, ThinkingPartDelta
from agent._parts import ModelMessage, ModelRequest, ModelResponse, ModelResponsePart, TextPart, ThinkingPart
from agent._tool_parts import NativeToolCallPart, ToolCallPart, ToolReturnPart
from agent.ui._event_stream import NativeEvent

__all__ = ('ShownParts', 'message_events')


def message_events(messages: Sequence[ModelMessage]) -> list[NativeEvent]:
    """The events that show `messages`: every response's parts whole, then the results of its tool calls."""
    events: list[NativeEvent] = []
    for message in messages:
        if isinstance(message, ModelResponse):
            events.extend(whole_response_events(message))
        else:
            events.extend(_result_events(message, None))
    return events


class ShownParts:
    """What a stream of a turn's events has shown: runs of response parts and tool results."""

    def __init__(self) -> None:
        self._responses: list[dict[int, ModelResponsePart]] = []
        self._open = False
        self._calls: set[str] = set()
        self._results: set[str] = set()

    def see(self, event: NativeEvent) -> None:
        """Note one event the stream shows."""
        if isinstance(event, PartStartEvent | PartEndEvent):
            current = self._responses[-1] if self._open and self._responses else None
            if isinstance(event, PartStartEvent) and (current is None or event.index <= max(current)):
                # Indexes start again: the parts of the next response.
                current = dict[int, ModelResponsePart]()
                self._responses.append(current)
                self._open = True
            if current is not None:
                current[event.index] = event.part
            if isinstance(event.part, ToolCallPart | NativeToolCallPart):
                self._calls.add(event.part.tool_call_id)
        elif isinstance(event, PartDeltaEvent):
            # The text a part has shown so far: a stream cut short (its result came before its last deltas) is
            # finished from the result, not taken as shown.
            current = self._responses[-1] if self._open and self._responses else None
            part = current.get(event.index) if current is not None else None
            if current is not None and isinstance(part, TextPart | ThinkingPart):
                with contextlib.suppress(ValueError):
                    current[event.index] = event.delta.apply(part)
        elif isinstance(event, ToolCallEvent | ToolResultEvent):
            self._open = False
            if isinstance(event, ToolResultEvent):
                self._results.add(event.tool_call_id)
        else:
            self._open = False

    def showed_calls(self, tool_call_ids: Sequence[str]) -> bool:
        """Whether the stream showed every one of these tool calls."""
        return all(tool_call_id in self._calls for tool_call_id in tool_call_ids)

    def unshown_events(self, messages: Sequence[ModelMessage]) -> list[NativeEvent]:
        """The events of the responses in `messages` the stream did not show, with their calls' results."""
        events: list[NativeEvent] = []
        shown = iter(self._responses)
        candidate = next(shown, None)
        added: set[str] = set()
        for message in messages:
            if isinstance(message, ModelResponse):
                if candidate is not None and _fits(candidate, message):
                    rest = _rest_of(candidate, message)
                    events.extend(rest)
                    added.update(
                        e.part.tool_call_id
                        for e in rest
                        if isinstance(e, PartEndEvent) and isinstance(e.part, ToolCallPart)
                    )
                    candidate = next(shown, None)
                    continue
                events.extend(whole_response_events(message))
                added.update(p.tool_call_id for p in message.parts if isinstance(p, ToolCallPart))
            elif added:
                events.extend(_result_events(message, added - self._results))
        return events


def _fits(shown: dict[int, ModelResponsePart], response: ModelResponse) -> bool:
    for index, part in shown.items():
        if index >= len(response.parts):
            return False
        full = response.parts[index]
        if full.part_kind != part.part_kind:
            return False
        if isinstance(part, ToolCallPart | NativeToolCallPart) and isinstance(full, ToolCallPart | NativeToolCallPart):
            same = part.tool_call_id == full.tool_call_id
        elif isinstance(part, TextPart | ThinkingPart) and isinstance(full, TextPart | ThinkingPart):
            same = full.content.startswith(part.content)
        else:
            same = True
        if not same:
            return False
    return bool(shown)


def _rest_of(shown: dict[int, ModelResponsePart], response: ModelResponse) -> list[NativeEvent]:
    """The events that finish a response the stream showed only in part: the text its parts still lacked, and the
    parts it never started."""
    events: list[NativeEvent] = []
    for index, full in enumerate(response.parts):
        part = shown.get(index)
        if part is None:
            events += [PartStartEvent(index=index, part=full), PartEndEvent(index=index, part=full)]
        elif (
            isinstance(part, TextPart | ThinkingPart)
            and isinstance(full, TextPart | ThinkingPart)
            and len(part.content) < len(full.content)
        ):
            rest = full.content[len(part.content) :]
            delta = TextPartDelta(rest) if isinstance(full, TextPart) else ThinkingPartDelta(content_delta=rest)
            events += [PartDeltaEvent(index=index, delta=delta), PartEndEvent(index=index, part=full)]
    return events


def _result_events(request: ModelMessage, calls: set[str] | None) -> list[NativeEvent]:
    """The tool results in `request` (of `calls` only, when given)."""
    if not isinstance(request, ModelRequest):
        return []
    return [
        FunctionToolResultEvent(part)
        for part in request.parts
        if isinstance(part, ToolReturnPart) and (calls is None or part.tool_call_id in calls)
    ]
