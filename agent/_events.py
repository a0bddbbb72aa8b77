"""Streaming deltas and the events an agent run emits."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, replace
from typing import Annotated, Any, Literal, TypeAlias

import pydantic

from ._parts import (
    ModelResponse,
    ModelResponsePart,
    RetryPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
)

__all__ = (
    'AgentStreamEvent',
    'FinalResultEvent',
    'FunctionToolCallEvent',
    'FunctionToolResultEvent',
    'HandleResponseEvent',
    'ModelResponsePartDelta',
    'ModelResponseStreamEvent',
    'OutputToolCallEvent',
    'OutputToolResultEvent',
    'PartDeltaEvent',
    'PartEndEvent',
    'PartStartEvent',
    'TextPartDelta',
    'ThinkingPartDelta',
    'ToolCallEvent',
    'ToolCallPartDelta',
    'ToolResultEvent',
)

PartKind: TypeAlias = Literal[
    'text', 'thinking', 'tool-call', 'builtin-tool-call', 'builtin-tool-return', 'file', 'compaction'
]


# ----- deltas -----


@dataclass
class TextPartDelta:
    """More text for a `TextPart`."""

    content_delta: str
    """The text to append."""
    _: KW_ONLY
    provider_name: str | None = None
    """The provider producing the part."""
    provider_details: dict[str, Any] | None = None
    """Provider details to merge into the part's."""
    part_delta_kind: Literal['text'] = 'text'

    def apply(self, part: ModelResponsePart) -> TextPart:
        """Return `part` with the delta applied."""
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
    """The provider producing the part."""
    provider_details: dict[str, Any] | None = None
    """Provider details to merge into the part's."""
    part_delta_kind: Literal['thinking'] = 'thinking'

    def apply(self, part: ModelResponsePart) -> ThinkingPart:
        """Return `part` with the delta applied."""
        if not isinstance(part, ThinkingPart):
            raise ValueError(f'Cannot apply a thinking delta to {type(part).__name__}')
        return replace(
            part,
            content=part.content + (self.content_delta or ''),
            signature=self.signature_delta if self.signature_delta is not None else part.signature,
            provider_name=self.provider_name or part.provider_name,
            provider_details=_merge_details(part.provider_details, self.provider_details),
        )


@dataclass
class ToolCallPartDelta:
    """A fragment of a tool call: name, id or a piece of the JSON arguments."""

    tool_name_delta: str | None = None
    """Text to append to the tool name."""
    args_delta: str | dict[str, Any] | None = None
    """JSON text to append to the arguments, or a dict to merge into them."""
    tool_call_id: str | None = None
    """The call id, once known."""
    _: KW_ONLY
    provider_name: str | None = None
    """The provider producing the part."""
    provider_details: dict[str, Any] | None = None
    """Provider details to merge into the part's."""
    part_delta_kind: Literal['tool_call'] = 'tool_call'

    def as_part(self) -> ToolCallPart | None:
        """A `ToolCallPart` from this delta alone, or `None` if the tool name is still unknown."""
        if not self.tool_name_delta:
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

    def apply(self, part: ModelResponsePart | ToolCallPartDelta) -> ToolCallPart | ToolCallPartDelta:
        """Apply the delta to a tool call part (or to an earlier delta whose name is still unknown)."""
        if isinstance(part, ToolCallPartDelta):
            merged = ToolCallPartDelta(
                (part.tool_name_delta or '') + (self.tool_name_delta or '') or None,
                _merge_args(part.args_delta, self.args_delta),
                self.tool_call_id or part.tool_call_id,
                provider_name=self.provider_name or part.provider_name,
                provider_details=_merge_details(part.provider_details, self.provider_details),
            )
            return merged.as_part() or merged
        if not isinstance(part, ToolCallPart):
            raise ValueError(f'Cannot apply a tool call delta to {type(part).__name__}')
        return replace(
            part,
            tool_name=part.tool_name + (self.tool_name_delta or ''),
            args=_merge_args(part.args, self.args_delta),
            tool_call_id=self.tool_call_id or part.tool_call_id,
            provider_name=self.provider_name or part.provider_name,
            provider_details=_merge_details(part.provider_details, self.provider_details),
        )


def _merge_details(current: dict[str, Any] | None, delta: dict[str, Any] | None) -> dict[str, Any] | None:
    if not delta:
        return current
    return {**(current or {}), **delta}


def _merge_args(
    current: str | dict[str, Any] | None, delta: str | dict[str, Any] | None
) -> str | dict[str, Any] | None:
    if delta is None:
        return current
    if current is None or current == '' or current == {}:
        return delta
    if isinstance(current, str) and isinstance(delta, str):
        return current + delta
    if isinstance(current, dict) and isinstance(delta, dict):
        return {**current, **delta}
    raise ValueError('Cannot mix JSON-string and dict tool call argument deltas')


ModelResponsePartDelta: TypeAlias = Annotated[
    TextPartDelta | ThinkingPartDelta | ToolCallPartDelta, pydantic.Discriminator('part_delta_kind')
]
"""A delta to a response part."""


# ----- model stream events -----


@dataclass(repr=False)
class PartStartEvent:
    """A new response part started streaming (or a part was emitted whole)."""

    index: int
    """The part's index in the response."""
    part: ModelResponsePart
    """The part as first seen."""
    _: KW_ONLY
    previous_part_kind: PartKind | None = None
    """The kind of the part before this one, if any."""
    event_kind: Literal['part_start'] = 'part_start'

    def __repr__(self) -> str:
        return f'PartStartEvent(index={self.index}, part={self.part!r})'


@dataclass(repr=False)
class PartDeltaEvent:
    """A streamed update to a response part."""

    index: int
    """The part's index in the response."""
    delta: ModelResponsePartDelta
    """The update."""
    _: KW_ONLY
    event_kind: Literal['part_delta'] = 'part_delta'

    def __repr__(self) -> str:
        return f'PartDeltaEvent(index={self.index}, delta={self.delta!r})'


@dataclass(repr=False)
class PartEndEvent:
    """A response part finished streaming."""

    index: int
    """The part's index in the response."""
    part: ModelResponsePart
    """The complete part."""
    _: KW_ONLY
    next_part_kind: PartKind | None = None
    """The kind of the part after this one, if any."""
    event_kind: Literal['part_end'] = 'part_end'

    def __repr__(self) -> str:
        return f'PartEndEvent(index={self.index}, part={self.part!r})'


@dataclass
class FinalResultEvent:
    """The model's response contains the final result (text, or a call to an output tool)."""

    tool_name: str | None
    """The output tool's name, or `None` for text output."""
    tool_call_id: str | None
    """The output tool call's id, or `None` for text output."""
    _: KW_ONLY
    event_kind: Literal['final_result'] = 'final_result'


ModelResponseStreamEvent: TypeAlias = Annotated[
    PartStartEvent | PartDeltaEvent | PartEndEvent | FinalResultEvent, pydantic.Discriminator('event_kind')
]
"""An event produced while a model response streams."""


# ----- tool handling events -----


@dataclass(repr=False)
class ToolCallEvent:
    """Base of the events emitted when a tool call is about to be handled."""

    part: ToolCallPart
    """The call."""
    _: KW_ONLY
    args_valid: bool | None = None
    """Whether the arguments passed validation: `True` or `False` if they were checked, `None` if they were not."""

    @property
    def tool_call_id(self) -> str:
        """The call's id."""
        return self.part.tool_call_id

    def __repr__(self) -> str:
        return f'{type(self).__name__}(part={self.part!r})'


@dataclass(repr=False)
class FunctionToolCallEvent(ToolCallEvent):
    """A function tool is about to be called."""

    _: KW_ONLY
    event_kind: Literal['function_tool_call'] = 'function_tool_call'


@dataclass(repr=False)
class OutputToolCallEvent(ToolCallEvent):
    """The model called an output tool (its final answer) and it is about to be validated."""

    _: KW_ONLY
    event_kind: Literal['output_tool_call'] = 'output_tool_call'


@dataclass(repr=False)
class ToolResultEvent:
    """Base of the events emitted when a tool call has been handled."""

    part: ToolReturnPart | RetryPromptPart
    """The result sent back to the model (a return, or a retry prompt)."""

    @property
    def tool_call_id(self) -> str:
        """The call's id."""
        return self.part.tool_call_id

    @property
    def tool_return(self) -> ToolReturnPart | RetryPromptPart:
        """The result part (alias of `part`)."""
        return self.part

    @property
    def result(self) -> ToolReturnPart | RetryPromptPart:
        """The result part (alias of `part`)."""
        return self.part

    def __repr__(self) -> str:
        return f'{type(self).__name__}(part={self.part!r})'


@dataclass(repr=False)
class FunctionToolResultEvent(ToolResultEvent):
    """A function tool call finished."""

    _: KW_ONLY
    event_kind: Literal['function_tool_result'] = 'function_tool_result'


@dataclass(repr=False)
class OutputToolResultEvent(ToolResultEvent):
    """An output tool call was handled (validated, or rejected with a retry prompt)."""

    _: KW_ONLY
    event_kind: Literal['output_tool_result'] = 'output_tool_result'


HandleResponseEvent: TypeAlias = Annotated[
    FunctionToolCallEvent | FunctionToolResultEvent | OutputToolCallEvent | OutputToolResultEvent,
    pydantic.Discriminator('event_kind'),
]
"""An event produced while the run handles a model response."""

AgentStreamEvent: TypeAlias = Annotated[
    PartStartEvent
    | PartDeltaEvent
    | PartEndEvent
    | FinalResultEvent
    | FunctionToolCallEvent
    | FunctionToolResultEvent
    | OutputToolCallEvent
    | OutputToolResultEvent,
    pydantic.Discriminator('event_kind'),
]
"""Any event streamed from an agent run (model stream events and tool handling events)."""


def whole_response_events(response: ModelResponse) -> list[PartStartEvent | PartEndEvent]:
    """The events of a response that arrived whole (not streamed): each part starts and ends, empty text left out."""
    parts = [part for part in response.parts if not (isinstance(part, TextPart) and not part.content)]
    events: list[PartStartEvent | PartEndEvent] = []
    for index, part in enumerate(parts):
        previous = parts[index - 1].part_kind if index else None
        following = parts[index + 1].part_kind if index + 1 < len(parts) else None
        events.append(PartStartEvent(index, part, previous_part_kind=previous))
        events.append(PartEndEvent(index, part, next_part_kind=following))
    return events
