"""Assembling a response's parts from the fragments a provider streams.

Providers identify the part a fragment belongs to in their own way (an index, an item id, a content block
number): the *vendor part id*. The manager maps those ids to part indexes in the response, applies each
fragment, and reports what changed as `PartStartEvent`/`PartDeltaEvent`s. Without a vendor id, a fragment
continues the latest part when that part is of the fragment's kind, and starts a new part otherwise.

A tool call can arrive before its name (some providers stream the id or arguments first). Until the name is
known it is held as a `ToolCallPartDelta`, left out of `get_parts()`; the `PartStartEvent` comes with the name.

Text and thinking fragments can turn into more than one event (text may open or close an embedded
`<think>` section), so `handle_text_delta` and `handle_thinking_delta` are generators: the fragment is applied
as the caller iterates them. Tool call and whole-part fragments give at most one event and return it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from ._events import ModelResponseStreamEvent, PartDeltaEvent, PartStartEvent
from ._part_deltas import ProviderDetailsDelta, TextPartDelta, ThinkingPartDelta, ToolCallPartDelta
from ._parts import ModelResponsePart, TextPart, ThinkingPart
from ._tool_parts import NativeToolCallPart, ToolCallPart, ToolPartKind
from ._typed_tool_parts import narrow_tool_call_part
from .exceptions import UnexpectedModelBehavior

if TYPE_CHECKING:
    from .models import ModelRequestParameters

__all__ = ('ManagedPart', 'ModelResponsePartsManager', 'VendorId')

VendorId: TypeAlias = Hashable
"""How a provider identifies the part a fragment belongs to: any hashable value."""

ManagedPart: TypeAlias = ModelResponsePart | ToolCallPartDelta
"""What the manager holds at a part index: a part, or a tool call still waiting for its name."""

_PartT = TypeVar('_PartT', bound=ManagedPart)


class ModelResponsePartsManager:
    """Tracks the parts of a streaming response by vendor part id."""

    def __init__(self, model_request_parameters: ModelRequestParameters) -> None:
        """Create a manager for the response to a request.

        Args:
            model_request_parameters: The request's parameters: tool calls of function tools with a
                `tool_kind` start as that kind's typed part (e.g. `ToolSearchCallPart`).
        """
        self.model_request_parameters = model_request_parameters
        """The parameters of the request being answered."""
        self._parts: list[ManagedPart] = []
        self._index_by_vendor_id: dict[VendorId, int] = {}
        self._tool_kinds: dict[str, ToolPartKind] = {
            tool.name: tool.tool_kind for tool in model_request_parameters.function_tools if tool.tool_kind
        }

    def get_parts(self) -> list[ModelResponsePart]:
        """The parts so far, leaving out tool calls whose name has not arrived yet."""
        return [part for part in self._parts if not isinstance(part, ToolCallPartDelta)]

    def get_part_by_vendor_id(self, vendor_id: VendorId) -> ManagedPart | None:
        """The part (or nameless tool call delta) recorded under `vendor_id`, if any."""
        index = self._index_by_vendor_id.get(vendor_id)
        return None if index is None else self._parts[index]

    def get_part_at(self, index: int) -> ModelResponsePart | None:
        """The part at `index` as it is now, or `None` if it is an incomplete tool call (or out of range)."""
        if 0 <= index < len(self._parts):
            part = self._parts[index]
            return None if isinstance(part, ToolCallPartDelta) else part
        return None

    def handle_text_delta(
        self,
        *,
        vendor_part_id: VendorId | None,
        content: str,
        id: str | None = None,
        provider_name: str | None = None,
        provider_details: dict[str, Any] | None = None,
        thinking_tags: tuple[str, str] | None = None,
        ignore_leading_whitespace: bool = False,
    ) -> Iterator[ModelResponseStreamEvent]:
        """Append text to the part identified by `vendor_part_id`, starting a text part if there is none.

        With `vendor_part_id=None` the text goes to the latest part if it is a text part.

        Args:
            vendor_part_id: The provider's id for the part, or `None`.
            content: The text to append; empty text still starts a part.
            id: The provider's id for a new part.
            provider_name: The provider producing the part.
            provider_details: Provider details to merge into the part's.
            thinking_tags: The opening and closing tags of reasoning written into the text (e.g.
                `('<think>', '</think>')`): a fragment that is exactly the opening tag starts a thinking part that
                takes the following fragments under the same vendor id, until a fragment that is exactly the
                closing tag.
            ignore_leading_whitespace: Start no part for text that is empty or only whitespace (some models
                write some before a tool call).

        Yields:
            A `PartStartEvent` for a new part or a `PartDeltaEvent` for an existing one; nothing for a closing
            thinking tag or ignored whitespace.

        Raises:
            UnexpectedModelBehavior: `vendor_part_id` belongs to a part that is not text (or thinking inside
                `thinking_tags`).
        """
        existing: tuple[TextPart, int] | None = None
        if vendor_part_id is None:
            existing = self._latest(TextPart)
        elif (index := self._index_by_vendor_id.get(vendor_part_id)) is not None:
            part = self._parts[index]
            if thinking_tags and isinstance(part, ThinkingPart):
                if content == thinking_tags[1]:
                    # The section is over: the vendor id's next text starts a new text part.
                    del self._index_by_vendor_id[vendor_part_id]
                else:
                    yield self._apply_thinking(index, part, content, provider_name, provider_details)
                return
            if not isinstance(part, TextPart):
                raise UnexpectedModelBehavior(f'Cannot apply a text delta to existing_part={part!r}')
            existing = part, index

        if thinking_tags and content == thinking_tags[0]:
            thinking = ThinkingPart('', provider_name=provider_name, provider_details=provider_details)
            yield PartStartEvent(self._append(thinking, vendor_part_id), thinking)
            return

        if existing is None:
            if ignore_leading_whitespace and (not content or content.isspace()):
                return
            part = TextPart(content, id=id, provider_name=provider_name, provider_details=provider_details)
            yield PartStartEvent(self._append(part, vendor_part_id), part)
            return
        part, index = existing
        delta = TextPartDelta(
            content, provider_name=_changed_provider(part, provider_name), provider_details=provider_details
        )
        self._parts[index] = delta.apply(part)
        yield PartDeltaEvent(index, delta)

    def handle_thinking_delta(
        self,
        *,
        vendor_part_id: VendorId | None,
        content: str | None = None,
        id: str | None = None,
        signature: str | None = None,
        provider_name: str | None = None,
        provider_details: ProviderDetailsDelta = None,
    ) -> Iterator[ModelResponseStreamEvent]:
        """Append reasoning text and/or a signature to a thinking part, starting one if there is none.

        With `vendor_part_id=None` the fragment goes to the latest part if it is a thinking part.

        Args:
            vendor_part_id: The provider's id for the part, or `None`.
            content: Reasoning text to append.
            id: The provider's id for a new part.
            signature: The part's signature (it replaces the one the part had).
            provider_name: The provider producing the part.
            provider_details: A dict to merge into the part's details, or a function from the part's details to
                its new ones.

        Yields:
            A `PartStartEvent` for a new part or a `PartDeltaEvent` for an existing one; nothing when an existing
            part gets neither content, signature, provider name nor details.

        Raises:
            UnexpectedModelBehavior: `vendor_part_id` belongs to a part that is not thinking, or a new part would
                have neither content, signature nor details.
        """
        existing: tuple[ThinkingPart, int] | None = None
        if vendor_part_id is None:
            existing = self._latest(ThinkingPart)
        elif (index := self._index_by_vendor_id.get(vendor_part_id)) is not None:
            part = self._parts[index]
            if not isinstance(part, ThinkingPart):
                raise UnexpectedModelBehavior(f'Cannot apply a thinking delta to existing_part={part!r}')
            existing = part, index

        if existing is None:
            if content is None and signature is None and provider_details is None:
                raise UnexpectedModelBehavior('Cannot create a ThinkingPart with no content, signature, or details')
            details = provider_details(None) if callable(provider_details) else provider_details
            part = ThinkingPart(
                content or '', id=id, signature=signature, provider_name=provider_name, provider_details=details
            )
            yield PartStartEvent(self._append(part, vendor_part_id), part)
            return
        if content is None and signature is None and provider_name is None and provider_details is None:
            return
        part, index = existing
        delta = ThinkingPartDelta(
            content,
            signature_delta=signature,
            provider_name=_changed_provider(part, provider_name),
            provider_details=provider_details,
        )
        self._parts[index] = delta.apply(part)
        yield PartDeltaEvent(index, delta)

    def handle_tool_call_delta(
        self,
        *,
        vendor_part_id: VendorId | None,
        tool_name: str | None = None,
        args: str | dict[str, Any] | None = None,
        tool_call_id: str | None = None,
        provider_name: str | None = None,
        provider_details: dict[str, Any] | None = None,
    ) -> ModelResponseStreamEvent | None:
        """Apply a fragment of a tool call (name, arguments and/or id).

        With `vendor_part_id=None` a fragment without a name continues the latest part if it is a tool call,
        and a fragment with a name always starts a new call.

        Returns:
            A `PartStartEvent` when the call's name becomes known, a `PartDeltaEvent` for later fragments, or
            `None` while the call is still held without a name.

        Raises:
            UnexpectedModelBehavior: `vendor_part_id` belongs to a part that is not a tool call, or the
                arguments mix JSON text and a dict.
        """
        existing: tuple[ToolCallPart | NativeToolCallPart | ToolCallPartDelta, int] | None = None
        if vendor_part_id is None:
            if tool_name is None:
                existing = self._latest(ToolCallPart, NativeToolCallPart, ToolCallPartDelta)
        elif (index := self._index_by_vendor_id.get(vendor_part_id)) is not None:
            part = self._parts[index]
            if not isinstance(part, ToolCallPart | NativeToolCallPart | ToolCallPartDelta):
                raise UnexpectedModelBehavior(f'Cannot apply a tool call delta to existing_part={part!r}')
            existing = part, index

        if existing is None:
            delta = ToolCallPartDelta(
                tool_name, args, tool_call_id, provider_name=provider_name, provider_details=provider_details
            )
            started = delta.as_part()
            if started is None:
                self._append(delta, vendor_part_id)
                return None
            started = self._typed(started)
            return PartStartEvent(self._append(started, vendor_part_id), started)

        part, index = existing
        delta = ToolCallPartDelta(
            tool_name,
            args,
            tool_call_id,
            provider_name=_changed_provider(part, provider_name),
            provider_details=provider_details,
        )
        updated = delta.apply(part)
        if isinstance(updated, ToolCallPart):
            updated = self._typed(updated)
        self._parts[index] = updated
        if isinstance(updated, ToolCallPartDelta):
            return None
        if isinstance(part, ToolCallPartDelta):
            return PartStartEvent(index, updated)
        if delta.tool_call_id is None:
            # Listeners match deltas to calls by id, so a delta carries the call's id even when the fragment did not.
            delta.tool_call_id = updated.tool_call_id
        return PartDeltaEvent(index, delta)

    def handle_tool_call_part(
        self,
        *,
        vendor_part_id: VendorId | None,
        tool_name: str,
        args: str | dict[str, Any] | None,
        tool_call_id: str | None = None,
        id: str | None = None,
        provider_name: str | None = None,
        provider_details: dict[str, Any] | None = None,
    ) -> ModelResponseStreamEvent:
        """Record a complete tool call, replacing the tool call recorded under the same vendor id if there is one.

        Returns:
            The `PartStartEvent` of the call (a new id is generated when `tool_call_id` is `None`).
        """
        part = ToolCallPart(tool_name, args, id=id, provider_name=provider_name, provider_details=provider_details)
        if tool_call_id:
            part.tool_call_id = tool_call_id
        return self._put(vendor_part_id, self._typed(part), ToolCallPart)

    def handle_part(self, *, vendor_part_id: VendorId | None, part: ModelResponsePart) -> ModelResponseStreamEvent:
        """Record a complete part (a file, a native tool call or result, ...).

        A part replaces the part recorded under the same vendor id when that one is of the same type; otherwise it
        is appended (and the vendor id now refers to it).

        Returns:
            The `PartStartEvent` of the part.
        """
        return self._put(vendor_part_id, part, type(part))

    def _put(self, vendor_part_id: VendorId | None, part: ModelResponsePart, replaces: type[Any]) -> PartStartEvent:
        index = None if vendor_part_id is None else self._index_by_vendor_id.get(vendor_part_id)
        if index is not None and isinstance(self._parts[index], replaces):
            self._parts[index] = part
        else:
            index = self._append(part, vendor_part_id)
        return PartStartEvent(index, part)

    def _latest(self, *kinds: type[_PartT]) -> tuple[_PartT, int] | None:
        """The latest part and its index, if it is of one of `kinds`."""
        if self._parts and isinstance(latest := self._parts[-1], kinds):
            return latest, len(self._parts) - 1
        return None

    def _append(self, part: ManagedPart, vendor_part_id: VendorId | None) -> int:
        self._parts.append(part)
        index = len(self._parts) - 1
        if vendor_part_id is not None:
            self._index_by_vendor_id[vendor_part_id] = index
        return index

    def _apply_thinking(
        self,
        index: int,
        part: ThinkingPart,
        content: str,
        provider_name: str | None,
        provider_details: dict[str, Any] | None,
    ) -> PartDeltaEvent:
        delta = ThinkingPartDelta(
            content, provider_name=_changed_provider(part, provider_name), provider_details=provider_details
        )
        self._parts[index] = delta.apply(part)
        return PartDeltaEvent(index, delta)

    def _typed(self, part: ToolCallPart) -> ToolCallPart:
        """The call as its tool kind's typed part, when the request declares a kind for the tool."""
        if part.tool_kind is not None:
            return part
        kind = self._tool_kinds.get(part.tool_name)
        return part if kind is None else narrow_tool_call_part(part, kind)


def _changed_provider(part: ManagedPart, provider_name: str | None) -> str | None:
    """The provider name a delta carries: only a new one, not the one the part already has."""
    return None if provider_name is not None and provider_name == part.provider_name else provider_name
