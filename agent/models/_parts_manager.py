"""Assembling a response's parts from the fragments a provider streams.

Providers identify the part a fragment belongs to in their own way (an index, an item id, a content block
number): the *vendor part id*. The manager maps those ids to part indexes in the response, applies each
fragment, and reports what changed as `PartStartEvent`/`PartDeltaEvent`s.

A tool call can arrive before its name (some providers stream the id or arguments first). Until the name is
known it is held as a `ToolCallPartDelta`; the `PartStartEvent` is emitted when the name arrives.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from typing import Any

from agent._events import (
    ModelResponseStreamEvent,
    PartDeltaEvent,
    PartStartEvent,
    TextPartDelta,
    ThinkingPartDelta,
    ToolCallPartDelta,
)
from agent._parts import ModelResponsePart, TextPart, ThinkingPart, ToolCallPart

__all__ = ('ModelResponsePartsManager',)

_ManagedPart = ModelResponsePart | ToolCallPartDelta


class ModelResponsePartsManager:
    """Tracks the parts of a streaming response by vendor part id."""

    def __init__(self) -> None:
        self._parts: list[_ManagedPart] = []
        self._index_by_vendor_id: dict[Hashable, int] = {}

    def get_parts(self) -> list[ModelResponsePart]:
        """The parts so far, leaving out tool calls whose name has not arrived yet."""
        return [part for part in self._parts if not isinstance(part, ToolCallPartDelta)]

    def get_part_at(self, index: int) -> ModelResponsePart | None:
        """The part at `index` as it is now, or `None` if it is an incomplete tool call (or out of range)."""
        if 0 <= index < len(self._parts):
            part = self._parts[index]
            return None if isinstance(part, ToolCallPartDelta) else part
        return None

    def handle_text_delta(self, *, vendor_part_id: Hashable | None, content: str) -> ModelResponseStreamEvent | None:
        """Append text to the part identified by `vendor_part_id`, starting a text part if needed.

        With `vendor_part_id=None` the text goes to the latest part if it is a text part.

        Returns:
            The event describing the change, or `None` if `content` is empty.
        """
        if not content:
            return None
        index = self._find(vendor_part_id, TextPart)
        if index is None:
            return self._start(vendor_part_id, TextPart(content))
        delta = TextPartDelta(content)
        self._parts[index] = delta.apply(self._as_part(index))
        return PartDeltaEvent(index, delta)

    def handle_thinking_delta(
        self,
        *,
        vendor_part_id: Hashable | None,
        content: str | None = None,
        signature: str | None = None,
        provider_name: str | None = None,
    ) -> ModelResponseStreamEvent | None:
        """Append reasoning text and/or signature to a thinking part, starting one if needed.

        Returns:
            The event describing the change, or `None` if there is neither content nor signature.
        """
        if not content and not signature:
            return None
        index = self._find(vendor_part_id, ThinkingPart)
        if index is None:
            return self._start(
                vendor_part_id, ThinkingPart(content or '', signature=signature, provider_name=provider_name)
            )
        delta = ThinkingPartDelta(content or None, signature_delta=signature, provider_name=provider_name)
        self._parts[index] = delta.apply(self._as_part(index))
        return PartDeltaEvent(index, delta)

    def handle_tool_call_delta(
        self,
        *,
        vendor_part_id: Hashable | None,
        tool_name: str | None = None,
        args: str | dict[str, Any] | None = None,
        tool_call_id: str | None = None,
    ) -> ModelResponseStreamEvent | None:
        """Apply a fragment of a tool call (name, arguments and/or id).

        With `vendor_part_id=None` the fragment goes to the latest part if it is a tool call.

        Returns:
            A `PartStartEvent` when the call's name becomes known, a `PartDeltaEvent` for later fragments, or
            `None` while the call is still buffered without a name.
        """
        delta = ToolCallPartDelta(tool_name, args, tool_call_id)
        index = self._find(vendor_part_id, ToolCallPart, ToolCallPartDelta)
        if index is not None and vendor_part_id is None and tool_name and self.get_part_at(index) is not None:
            # Without vendor ids, a name arriving after a complete call can only be the start of another call.
            index = None
        if index is None:
            part = delta.as_part()
            if part is not None:
                return self._start(vendor_part_id, part)
            self._append(vendor_part_id, delta)
            return None
        existing = self._parts[index]
        updated = delta.apply(existing)
        self._parts[index] = updated
        if isinstance(existing, ToolCallPartDelta):
            return PartStartEvent(index, updated) if isinstance(updated, ToolCallPart) else None
        return PartDeltaEvent(index, delta)

    def handle_tool_call_part(
        self,
        *,
        vendor_part_id: Hashable | None,
        tool_name: str,
        args: str | dict[str, Any] | None,
        tool_call_id: str | None = None,
    ) -> ModelResponseStreamEvent:
        """Record a complete tool call, replacing the part with the same vendor id if there is one."""
        part = ToolCallPart(tool_name, args)
        if tool_call_id is not None:
            part = replace(part, tool_call_id=tool_call_id)
        return self.handle_part(vendor_part_id=vendor_part_id, part=part)

    def handle_part(self, *, vendor_part_id: Hashable | None, part: ModelResponsePart) -> ModelResponseStreamEvent:
        """Record a complete part (a file, a native tool call or result, ...).

        A part with a known vendor id replaces the part recorded under it; otherwise it is appended.
        """
        if vendor_part_id is not None and vendor_part_id in self._index_by_vendor_id:
            index = self._index_by_vendor_id[vendor_part_id]
            self._parts[index] = part
            return PartStartEvent(index, part)
        return self._start(vendor_part_id, part)

    def _find(self, vendor_part_id: Hashable | None, *kinds: type[Any]) -> int | None:
        """The index of the part a fragment continues, if it exists and is of one of `kinds`."""
        index = len(self._parts) - 1 if vendor_part_id is None else self._index_by_vendor_id.get(vendor_part_id, -1)
        if index >= 0 and isinstance(self._parts[index], kinds):
            return index
        return None

    def _as_part(self, index: int) -> ModelResponsePart:
        part = self._parts[index]
        if isinstance(part, ToolCallPartDelta):
            raise ValueError(f'Part {index} is an incomplete tool call')
        return part

    def _start(self, vendor_part_id: Hashable | None, part: ModelResponsePart) -> PartStartEvent:
        return PartStartEvent(self._append(vendor_part_id, part), part)

    def _append(self, vendor_part_id: Hashable | None, part: _ManagedPart) -> int:
        self._parts.append(part)
        index = len(self._parts) - 1
        if vendor_part_id is not None:
            self._index_by_vendor_id[vendor_part_id] = index
        return index
