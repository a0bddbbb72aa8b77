"""Message parts and the two message kinds, `ModelRequest` and `ModelResponse`.

Every part is a dataclass with a `part_kind` literal and every message has a `kind` literal, so a
whole history is one discriminated union that round-trips through JSON without losing its types.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field
from datetime import datetime
from typing import Annotated, Any, Literal, TypeAlias

import pydantic
import pydantic_core

from ._content import BinaryContent, BinaryImage, UserContent
from ._env import now_utc
from ._tool_parts import (
    BaseToolCallPart,
    BaseToolReturnPart,
    NativeToolCallPart,
    NativeToolReturnPart,
    ToolCallPart,
    ToolPartKind,
    ToolReturnPart,
    new_tool_call_id,
    revive_content,
    tool_return_content_str,
)
from .usage import RequestUsage

__all__ = (
    'BaseToolCallPart',
    'BaseToolReturnPart',
    'BuiltinToolCallPart',
    'BuiltinToolReturnPart',
    'CompactionPart',
    'FilePart',
    'FinishReason',
    'InstructionPart',
    'ModelMessage',
    'ModelRequest',
    'ModelRequestPart',
    'ModelResponse',
    'ModelResponsePart',
    'ModelResponseState',
    'NativeToolCallPart',
    'NativeToolReturnPart',
    'RetryPromptPart',
    'SystemPromptPart',
    'TextPart',
    'ThinkingPart',
    'ToolCallPart',
    'ToolPartKind',
    'ToolReturnPart',
    'UserPromptPart',
    'revive_content',
    'tool_return_content_str',
)


# ----- request parts -----


@dataclass(repr=False)
class SystemPromptPart:
    """A system prompt: instructions written by the developer."""

    content: str
    """The prompt text."""
    _: KW_ONLY
    timestamp: datetime = field(default_factory=now_utc)
    """When the part was created."""
    dynamic_ref: str | None = None
    """The name of the function that produced the prompt, if it is re-evaluated on every run."""
    part_kind: Literal['system-prompt'] = 'system-prompt'

    def __repr__(self) -> str:
        return f'SystemPromptPart(content={self.content!r})'


@dataclass(repr=False)
class UserPromptPart:
    """A user prompt: text, or a sequence of text and multi-modal items."""

    content: str | Sequence[UserContent]
    """The prompt content."""
    _: KW_ONLY
    timestamp: datetime = field(default_factory=now_utc)
    """When the part was created."""
    part_kind: Literal['user-prompt'] = 'user-prompt'

    def __repr__(self) -> str:
        return f'UserPromptPart(content={self.content!r})'


_ERROR_DETAILS = pydantic.TypeAdapter(list[pydantic_core.ErrorDetails], config=pydantic.ConfigDict(defer_build=True))


def _error_details_str(errors: list[pydantic_core.ErrorDetails], *, tool_call: bool) -> str:
    # A tool call's errors keep `input`, so the model sees what it sent. For output in the response text, the
    # text is already in the model's context: top-level errors would only repeat it.
    if tool_call:
        drop: dict[Any, Any] = {'__all__': {'ctx'}}
    else:
        drop = {i: {'ctx', 'input'} if len(e.get('loc', ())) <= 1 else {'ctx'} for i, e in enumerate(errors)}
    body = _ERROR_DETAILS.dump_json(errors, exclude=drop, indent=2, fallback=repr).decode()
    return f'{len(errors)} validation error{"s" if len(errors) != 1 else ""}:\n```json\n{body}\n```'


@dataclass(repr=False)
class RetryPromptPart:
    """Asks the model to try again: a tool or output failed validation or raised `ModelRetry`."""

    content: list[pydantic_core.ErrorDetails] | str
    """Validation errors, or a message."""
    _: KW_ONLY
    tool_name: str | None = None
    """The tool the retry is about, if any (`None` for plain-text output retries)."""
    tool_call_id: str = field(default_factory=new_tool_call_id)
    """The id of the call this answers."""
    timestamp: datetime = field(default_factory=now_utc)
    """When the part was created."""
    part_kind: Literal['retry-prompt'] = 'retry-prompt'

    def model_response(self) -> str:
        """The text sent to the model."""
        if not isinstance(self.content, str):
            description = _error_details_str(self.content, tool_call=self.tool_name is not None)
        elif self.tool_name is None:
            description = f'Validation feedback:\n{self.content}'
        else:
            description = self.content
        return f'{description}\n\nFix the errors and try again.'

    def __repr__(self) -> str:
        return (
            f'RetryPromptPart(content={self.content!r}, tool_name={self.tool_name!r}, '
            f'tool_call_id={self.tool_call_id!r})'
        )


ModelRequestPart: TypeAlias = Annotated[
    SystemPromptPart | UserPromptPart | ToolReturnPart | RetryPromptPart, pydantic.Discriminator('part_kind')
]
"""A part of a request sent to the model."""


# ----- response parts -----


@dataclass(repr=False)
class TextPart:
    """Text produced by the model."""

    content: str
    """The text."""
    _: KW_ONLY
    id: str | None = None
    """The provider's id for the part, if any."""
    provider_name: str | None = None
    """The provider that produced the part (its id and details only make sense to the same provider)."""
    provider_details: dict[str, Any] | None = None
    """Provider data with no standard field (some of it must be sent back to the same provider)."""
    part_kind: Literal['text'] = 'text'

    def has_content(self) -> bool:
        """Whether the part contains any text."""
        return bool(self.content)

    def __repr__(self) -> str:
        return f'TextPart(content={self.content!r})'


@dataclass(repr=False)
class ThinkingPart:
    """Reasoning produced by the model before it answers."""

    content: str
    """The reasoning text (may be a summary, or empty when the provider only returns a signature)."""
    _: KW_ONLY
    id: str | None = None
    """The provider's id for the part, if any."""
    signature: str | None = None
    """An opaque signature some providers require to be sent back unchanged."""
    provider_name: str | None = None
    """The provider that produced the part (signatures only make sense to the same provider)."""
    provider_details: dict[str, Any] | None = None
    """Provider data with no standard field (some of it must be sent back to the same provider)."""
    part_kind: Literal['thinking'] = 'thinking'

    def has_content(self) -> bool:
        """Whether the part contains reasoning text or a signature."""
        return bool(self.content or self.signature)

    def __repr__(self) -> str:
        return f'ThinkingPart(content={self.content!r})'


BuiltinToolCallPart = NativeToolCallPart
"""Older name of `NativeToolCallPart`."""
BuiltinToolReturnPart = NativeToolReturnPart
"""Older name of `NativeToolReturnPart`."""


@dataclass(repr=False)
class FilePart:
    """A file produced by the model (e.g. a generated image)."""

    content: BinaryContent
    """The file's bytes and media type."""
    _: KW_ONLY
    id: str | None = None
    """The provider's id for the part, if any."""
    provider_name: str | None = None
    """The provider that produced the file."""
    provider_details: dict[str, Any] | None = None
    """Provider data with no standard field."""
    part_kind: Literal['file'] = 'file'

    def has_content(self) -> bool:
        """Whether the file has any bytes."""
        return bool(self.content.data)

    def __repr__(self) -> str:
        return f'FilePart(content={self.content!r})'


@dataclass(repr=False)
class CompactionPart:
    """A provider's summary of earlier conversation, standing in for the messages it replaced.

    Only the provider that produced it can read it back: some providers return readable text, others an
    encrypted blob kept in `provider_details`. Models that do not understand it leave it out of requests.
    """

    content: str | None = None
    """The summary text, when the provider returns a readable one."""
    _: KW_ONLY
    id: str | None = None
    """The provider's id for the part, if any."""
    provider_name: str | None = None
    """The provider that produced the part (its id and details only make sense to the same provider)."""
    provider_details: dict[str, Any] | None = None
    """Provider data with no standard field (some of it must be sent back to the same provider)."""
    part_kind: Literal['compaction'] = 'compaction'

    def has_content(self) -> bool:
        """Whether the part has summary text."""
        return bool(self.content)

    def __repr__(self) -> str:
        return f'CompactionPart(content={self.content!r})'


ModelResponsePart: TypeAlias = Annotated[
    TextPart | ThinkingPart | ToolCallPart | NativeToolCallPart | NativeToolReturnPart | FilePart | CompactionPart,
    pydantic.Discriminator('part_kind'),
]
"""A part of a model's response."""

FinishReason: TypeAlias = Literal['stop', 'length', 'content_filter', 'tool_call', 'error']
"""Why the model stopped generating."""

ModelResponseState: TypeAlias = Literal['complete', 'incomplete', 'interrupted']
"""Where a response is in its life: fully received, still streaming, or cut off by the caller."""


# ----- messages -----


@dataclass(repr=False)
class ModelRequest:
    """A request sent to the model: prompts, tool results and retry prompts."""

    parts: Sequence[ModelRequestPart]
    """The parts of the request."""
    _: KW_ONLY
    # `None` by default (not the time of construction): a request read back from an old history must not
    # appear to have been sent when it was loaded. The run sets it when it sends the request.
    timestamp: datetime | None = None
    """When the request was sent to the model."""
    instructions: str | None = None
    """The instructions in force for this request (sent separately from the history by most models)."""
    run_id: str | None = None
    """The agent run that created the message."""
    conversation_id: str | None = None
    """The conversation the message belongs to."""
    metadata: dict[str, Any] | None = None
    """Data kept with the message for the application; never sent to the model."""
    kind: Literal['request'] = 'request'

    @classmethod
    def user_text_prompt(cls, user_prompt: str, *, instructions: str | None = None) -> ModelRequest:
        """A request with a single text user prompt."""
        return cls(parts=[UserPromptPart(user_prompt)], instructions=instructions)

    def __repr__(self) -> str:
        return f'ModelRequest(parts={list(self.parts)!r})'


@dataclass(repr=False)
class ModelResponse:
    """A response from the model."""

    parts: Sequence[ModelResponsePart]
    """The parts of the response."""
    _: KW_ONLY
    usage: RequestUsage = field(default_factory=RequestUsage)
    """Tokens used by the request that produced this response."""
    model_name: str | None = None
    """The model that produced the response."""
    timestamp: datetime = field(default_factory=now_utc)
    """When the response was received."""
    provider_name: str | None = None
    """The provider that served the request."""
    provider_url: str | None = None
    """The base URL of the provider that served the request."""
    # Histories stored before these fields were renamed used `vendor_details` and `vendor_id`.
    provider_details: Annotated[
        dict[str, Any] | None,
        pydantic.Field(validation_alias=pydantic.AliasChoices('provider_details', 'vendor_details')),
    ] = None
    """Provider-specific details about the response."""
    provider_response_id: Annotated[
        str | None, pydantic.Field(validation_alias=pydantic.AliasChoices('provider_response_id', 'vendor_id'))
    ] = None
    """The provider's id for the response."""
    finish_reason: FinishReason | None = None
    """Why the model stopped."""
    run_id: str | None = None
    """The agent run that created the message."""
    conversation_id: str | None = None
    """The conversation the message belongs to."""
    metadata: dict[str, Any] | None = None
    """Data kept with the message for the application; never sent to the model."""
    state: ModelResponseState = 'complete'
    """`'complete'`, or `'incomplete'` while it streams, or `'interrupted'` if streaming was stopped early."""
    kind: Literal['response'] = 'response'

    @property
    def text(self) -> str | None:
        """The text parts' text, or `None` if there are none.

        Adjacent text parts are one text (a streamed answer split up); text parts with other parts between them
        (a native tool call, say) are separated by a blank line.
        """
        texts: list[str] = []
        previous: ModelResponsePart | None = None
        for part in self.parts:
            if isinstance(part, TextPart):
                if isinstance(previous, TextPart):
                    texts[-1] += part.content
                else:
                    texts.append(part.content)
            previous = part
        return '\n\n'.join(texts) if texts else None

    @property
    def thinking(self) -> str | None:
        """The thinking parts' text, separated by blank lines, or `None` if there are none."""
        thoughts = [part.content for part in self.parts if isinstance(part, ThinkingPart)]
        return '\n\n'.join(thoughts) if thoughts else None

    @property
    def files(self) -> list[BinaryContent]:
        """The files in the response (its file parts' content)."""
        return [part.content for part in self.parts if isinstance(part, FilePart)]

    @property
    def images(self) -> list[BinaryImage]:
        """The images among the response's files."""
        return [file for file in self.files if isinstance(file, BinaryImage)]

    @property
    def native_tool_calls(self) -> list[tuple[NativeToolCallPart, NativeToolReturnPart]]:
        """The native tool calls that have a result in the response, each with its result."""
        returns = {part.tool_call_id: part for part in self.parts if isinstance(part, NativeToolReturnPart)}
        return [
            (part, returns[part.tool_call_id])
            for part in self.parts
            if isinstance(part, NativeToolCallPart) and part.tool_call_id in returns
        ]

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        """The function/output tool calls in the response."""
        return [part for part in self.parts if isinstance(part, ToolCallPart)]

    def __repr__(self) -> str:
        return f'ModelResponse(parts={list(self.parts)!r}, model_name={self.model_name!r})'


ModelMessage: TypeAlias = Annotated[ModelRequest | ModelResponse, pydantic.Discriminator('kind')]
"""Any message in a conversation history."""


@dataclass
class InstructionPart:
    """Instructions for the model contributed by a source other than the agent itself, e.g. an MCP server.

    `str(part)` is the text, so a function returning a part can be passed straight to `Agent(instructions=...)`.
    """

    content: str
    """The instruction text."""
    dynamic: bool = False
    """Whether the text may change between runs (re-evaluated on every request instead of fixed)."""
    part_kind: Literal['instruction'] = 'instruction'
    """Type discriminator."""

    def __str__(self) -> str:
        return self.content

    def __repr__(self) -> str:
        return f'InstructionPart(content={self.content!r}' + (', dynamic=True)' if self.dynamic else ')')

    @staticmethod
    def join(parts: Sequence[InstructionPart]) -> str | None:
        """The parts' text, separated by blank lines and stripped; `None` if that leaves nothing."""
        return '\n\n'.join(part.content for part in parts).strip() or None

    @staticmethod
    def sorted(parts: Sequence[InstructionPart]) -> list[InstructionPart]:
        """The parts with the static ones first, each group in its own order."""
        return sorted(parts, key=lambda part: part.dynamic)
