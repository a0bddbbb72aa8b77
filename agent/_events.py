"""The events an agent run emits (the deltas they carry live in `_part_deltas`)."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import Annotated, Literal, TypeAlias

import pydantic

from ._part_deltas import ModelResponsePartDelta, TextPartDelta, ThinkingPartDelta, ToolCallPartDelta
from ._parts import (
    ModelResponse,
    ModelResponsePart,
    RetryPromptPart,
    TextPart,
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
