"""Deltas: the fragments of a response part that a streamed response carries.

A delta is applied to the part it continues (`delta.apply(part)` returns the updated part), or, for thinking and
tool call deltas, to an earlier delta of the same kind, so that fragments can be combined before the part they
belong to exists (a tool call whose name has not arrived yet is held as a `ToolCallPartDelta`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, replace
from typing import Annotated, Any, Literal, TypeAlias, overload

import pydantic

from ._parts import ModelResponsePart, TextPart, ThinkingPart
from ._tool_parts import NativeToolCallPart, ToolCallPart
from .exceptions import UnexpectedModelBehavior

__all__ = (
    'ModelResponsePartDelta',
    'ProviderDetailsDelta',
    'TextPartDelta',
    'ThinkingPartDelta',
    'ToolCallPartDelta',
)

ProviderDetailsDelta: TypeAlias = dict[str, Any] | Callable[[dict[str, Any] | None], dict[str, Any]] | None
"""Provider details for a delta: a dict merged into the part's details, or a function from the part's details
(or `None`) to its new details, for providers whose details need more than a merge."""


@dataclass
class TextPartDelta:
    """More text for a `TextPart`."""

    content_delta: str
    """The text to append."""
    _: KW_ONLY
    provider_name: str | None = None
    """The provider producing the part, when it is new or has changed."""
    provider_details: dict[str, Any] | None = None
    """Provider details to merge into the part's."""
    part_delta_kind: Literal['text'] = 'text'

    def apply(self, part: ModelResponsePart) -> TextPart:
        """Return `part` with the delta applied.

        Raises:
            ValueError: `part` is not a `TextPart`.
        """
        if not isinstance(part, TextPart):
            raise ValueError(f'Cannot apply a text delta to {type(part).__name__}')
        return replace(
            part,
            content=part.content + self.content_delta,
            provider_name=self.provider_name or part.provider_name,
            provider_details=_merge_details(part.provider_details, self.provider_details),
        )


@dataclass
class ThinkingPartDelta:
    """More reasoning (or a signature) for a `ThinkingPart`."""

    content_delta: str | None = None
    """Reasoning text to append."""
    _: KW_ONLY
    signature_delta: str | None = None
    """The part's signature, replacing the one it had (providers send a signature whole, once the thinking ends)."""
    provider_name: str | None = None
    """The provider producing the part, when it is new or has changed."""
    provider_details: ProviderDetailsDelta = None
    """Provider details: a dict to merge into the part's, or a function computing the part's new details."""
    part_delta_kind: Literal['thinking'] = 'thinking'

    @overload
    def apply(self, part: ModelResponsePart) -> ThinkingPart: ...

    @overload
    def apply(self, part: ModelResponsePart | ThinkingPartDelta) -> ThinkingPart | ThinkingPartDelta: ...

    def apply(self, part: ModelResponsePart | ThinkingPartDelta) -> ThinkingPart | ThinkingPartDelta:
        """Return `part` with the delta applied; applied to an earlier delta, the two are combined into one.

        Raises:
            ValueError: `part` is neither a `ThinkingPart` nor a `ThinkingPartDelta`, or it is a delta and this
                delta has neither content nor a signature.
        """
        if isinstance(part, ThinkingPartDelta):
            return self._combine(part)
        if not isinstance(part, ThinkingPart):
            raise ValueError(f'Cannot apply a thinking delta to {type(part).__name__}')
        details = self.provider_details
        if callable(details):
            details = details(part.provider_details)
        return replace(
            part,
            content=part.content + (self.content_delta or ''),
            signature=self.signature_delta if self.signature_delta is not None else part.signature,
            provider_name=self.provider_name if self.provider_name is not None else part.provider_name,
            provider_details=_merge_details(part.provider_details, details),
        )

    def _combine(self, earlier: ThinkingPartDelta) -> ThinkingPartDelta:
        if self.content_delta is None and self.signature_delta is None:
            raise ValueError('Cannot apply ThinkingPartDelta with no content or signature')
        content = earlier.content_delta
        if self.content_delta is not None:
            content = (content or '') + self.content_delta
        return replace(
            earlier,
            content_delta=content,
            signature_delta=self.signature_delta if self.signature_delta is not None else earlier.signature_delta,
            provider_name=self.provider_name if self.provider_name is not None else earlier.provider_name,
            provider_details=_chain_details(earlier.provider_details, self.provider_details),
        )


@dataclass
class ToolCallPartDelta:
    """A fragment of a tool call: name, id or a piece of the arguments."""

    tool_name_delta: str | None = None
    """Text to append to the tool name."""
    args_delta: str | dict[str, Any] | None = None
    """JSON text to append to the arguments, or a dict to merge into them."""
    tool_call_id: str | None = None
    """The call id, once known (it replaces the one the part had)."""
    _: KW_ONLY
    provider_name: str | None = None
    """The provider producing the part, when it is new or has changed."""
    provider_details: dict[str, Any] | None = None
    """Provider details to merge into the part's."""
    part_delta_kind: Literal['tool_call'] = 'tool_call'

    def as_part(self) -> ToolCallPart | None:
        """A `ToolCallPart` from this delta alone, or `None` if the tool name is still unknown."""
        if self.tool_name_delta is None:
            return None
        part = ToolCallPart(
            self.tool_name_delta,
            self.args_delta,
            provider_name=self.provider_name,
            provider_details=self.provider_details,
        )
        if self.tool_call_id:
            part.tool_call_id = self.tool_call_id
        return part

    @overload
    def apply(self, part: ModelResponsePart) -> ToolCallPart | NativeToolCallPart: ...

    @overload
    def apply(
        self, part: ModelResponsePart | ToolCallPartDelta
    ) -> ToolCallPart | NativeToolCallPart | ToolCallPartDelta: ...

    def apply(
        self, part: ModelResponsePart | ToolCallPartDelta
    ) -> ToolCallPart | NativeToolCallPart | ToolCallPartDelta:
        """Apply the delta to a tool call part, or to an earlier delta whose name is still unknown.

        Applied to a delta, the result is a `ToolCallPart` as soon as the combined fragments name the tool.

        Raises:
            ValueError: `part` is not a tool call (function or native) nor a `ToolCallPartDelta`.
            UnexpectedModelBehavior: The delta's arguments are JSON text and the call's a dict, or the reverse.
        """
        if isinstance(part, ToolCallPartDelta):
            name = part.tool_name_delta
            if self.tool_name_delta:
                name = (name or '') + self.tool_name_delta
            merged = ToolCallPartDelta(
                name,
                _merge_args(part.args_delta, self.args_delta, part, self),
                self.tool_call_id or part.tool_call_id,
                provider_name=self.provider_name or part.provider_name,
                provider_details=_merge_details(part.provider_details, self.provider_details),
            )
            return merged.as_part() or merged
        if not isinstance(part, ToolCallPart | NativeToolCallPart):
            raise ValueError(f'Cannot apply a tool call delta to {type(part).__name__}')
        return replace(
            part,
            tool_name=part.tool_name + (self.tool_name_delta or ''),
            args=_merge_args(part.args, self.args_delta, part, self),
            tool_call_id=self.tool_call_id or part.tool_call_id,
            provider_name=self.provider_name or part.provider_name,
            provider_details=_merge_details(part.provider_details, self.provider_details),
        )


def _merge_details(current: dict[str, Any] | None, delta: dict[str, Any] | None) -> dict[str, Any] | None:
    if not delta:
        return current
    return {**(current or {}), **delta}


def _chain_details(earlier: ProviderDetailsDelta, later: ProviderDetailsDelta) -> ProviderDetailsDelta:
    """Combine two deltas' provider details into one that has the effect of applying both in order."""
    if later is None:
        return earlier
    if earlier is None:
        return later
    if not callable(earlier) and not callable(later):
        return {**earlier, **later}

    def both(details: dict[str, Any] | None) -> dict[str, Any]:
        first = earlier(details) if callable(earlier) else {**(details or {}), **earlier}
        return later(first) if callable(later) else {**first, **later}

    return both


def _merge_args(
    current: str | dict[str, Any] | None, delta: str | dict[str, Any] | None, call: object, fragment: object
) -> str | dict[str, Any] | None:
    """Arguments so far with a fragment added: JSON text is appended, a dict merged; the two do not mix."""
    if delta is None:
        return current
    if isinstance(delta, str):
        if isinstance(current, dict):
            raise UnexpectedModelBehavior(f'Cannot apply JSON deltas to non-JSON tool arguments ({call=}, {fragment=})')
        return (current or '') + delta
    if isinstance(current, str):
        raise UnexpectedModelBehavior(f'Cannot apply dict deltas to non-dict tool arguments ({call=}, {fragment=})')
    return {**(current or {}), **delta}


ModelResponsePartDelta: TypeAlias = Annotated[
    TextPartDelta | ThinkingPartDelta | ToolCallPartDelta, pydantic.Discriminator('part_delta_kind')
]
"""A delta to a response part."""
