"""Message parts and the two message kinds, `ModelRequest` and `ModelResponse`.

Every part is a dataclass with a `part_kind` literal and every message has a `kind` literal, so a
whole history is one discriminated union that round-trips through JSON without losing its types.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field
from datetime import datetime
from typing import Annotated, Any, Literal, TypeAlias, cast

import pydantic
import pydantic_core

from ._content import BinaryContent, MultiModalContent, UserContent
from ._env import new_id, now_utc
from .usage import RequestUsage

__all__ = (
    'BaseToolCallPart',
    'BaseToolReturnPart',
    'BuiltinToolCallPart',
    'BuiltinToolReturnPart',
    'FilePart',
    'FinishReason',
    'InstructionPart',
    'ModelMessage',
    'ModelRequest',
    'ModelRequestPart',
    'ModelResponse',
    'ModelResponsePart',
    'NativeToolCallPart',
    'NativeToolReturnPart',
    'RetryPromptPart',
    'SystemPromptPart',
    'TextPart',
    'ThinkingPart',
    'ToolCallPart',
    'ToolReturnPart',
    'UserPromptPart',
    'tool_return_content_str',
)


def _new_tool_call_id() -> str:
    return new_id('call_')


def tool_return_content_str(content: Any) -> str:
    """Render a tool result as the text a model sees."""
    if isinstance(content, str):
        return content
    return pydantic_core.to_json(content, fallback=repr).decode()


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


_CONTENT_KINDS = frozenset({'image-url', 'audio-url', 'video-url', 'document-url', 'binary'})
_MULTI_MODAL: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(MultiModalContent)


def _revive_one(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    mapping = cast(dict[str, Any], value)
    if mapping.get('kind') in _CONTENT_KINDS:
        try:
            return _MULTI_MODAL.validate_python(mapping)
        except pydantic.ValidationError:
            pass  # a plain object that merely has a `kind` key
    return mapping


def revive_content(value: Any) -> Any:
    """Multi-modal tool results (an image, or a list holding some) read back from JSON as their own types."""
    if isinstance(value, list):
        items: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
        return [_revive_one(item) for item in items]
    return _revive_one(value)


@dataclass(repr=False)
class BaseToolReturnPart:
    """Fields shared by the results of function tools and native tools."""

    tool_name: str
    """The tool that was called."""
    content: Annotated[Any, pydantic.BeforeValidator(revive_content)]
    """The result; anything serializable to JSON (multi-modal content comes back as its own type from JSON)."""
    tool_call_id: str = field(default_factory=_new_tool_call_id)
    """The id of the call this answers."""
    _: KW_ONLY
    metadata: Any = None
    """Data kept with the result but not sent to the model."""
    timestamp: datetime = field(default_factory=now_utc)
    """When the result was produced."""

    def model_response_str(self) -> str:
        """The result as the text a model sees."""
        return tool_return_content_str(self.content)

    def model_response_object(self) -> dict[str, Any]:
        """The result as a JSON object (non-object results are wrapped under `return_value`)."""
        value = pydantic_core.to_jsonable_python(self.content, fallback=repr)
        return value if isinstance(value, dict) else {'return_value': value}  # pyright: ignore[reportUnknownVariableType]

    def __repr__(self) -> str:
        return (
            f'{type(self).__name__}(tool_name={self.tool_name!r}, content={self.content!r}, '
            f'tool_call_id={self.tool_call_id!r})'
        )


@dataclass(repr=False)
class ToolReturnPart(BaseToolReturnPart):
    """The result of a function tool call, sent back to the model."""

    _: KW_ONLY
    outcome: Literal['success', 'failed', 'denied'] = 'success'
    """Whether the call succeeded, failed (e.g. was interrupted) or was denied by a human."""
    part_kind: Literal['tool-return'] = 'tool-return'


def _error_details_str(errors: list[pydantic_core.ErrorDetails]) -> str:
    lines = [f'{len(errors)} validation error{"s" if len(errors) != 1 else ""}:']
    lines.append(pydantic_core.to_json(errors, indent=2, fallback=repr).decode())
    return '\n'.join(lines)


@dataclass(repr=False)
class RetryPromptPart:
    """Asks the model to try again: a tool or output failed validation or raised `ModelRetry`."""

    content: list[pydantic_core.ErrorDetails] | str
    """Validation errors, or a message."""
    _: KW_ONLY
    tool_name: str | None = None
    """The tool the retry is about, if any (`None` for plain-text output retries)."""
    tool_call_id: str = field(default_factory=_new_tool_call_id)
    """The id of the call this answers."""
    timestamp: datetime = field(default_factory=now_utc)
    """When the part was created."""
    part_kind: Literal['retry-prompt'] = 'retry-prompt'

    def model_response(self) -> str:
        """The text sent to the model."""
        description = self.content if isinstance(self.content, str) else _error_details_str(self.content)
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
    part_kind: Literal['thinking'] = 'thinking'

    def has_content(self) -> bool:
        """Whether the part contains reasoning text or a signature."""
        return bool(self.content or self.signature)

    def __repr__(self) -> str:
        return f'ThinkingPart(content={self.content!r})'


@dataclass(repr=False)
class BaseToolCallPart:
    """Fields shared by function tool calls and native tool calls."""

    tool_name: str
    """The tool to call."""
    args: str | dict[str, Any] | None = None
    """The arguments: a JSON string as streamed by most providers, or an already-parsed dict."""
    tool_call_id: str = field(default_factory=_new_tool_call_id)
    """The call's id, used to match the result to the call (and as an idempotency key)."""
    _: KW_ONLY
    id: str | None = None
    """The provider's id for the part, if different from the call id."""

    def args_as_dict(self) -> dict[str, Any]:
        """The arguments as a dict.

        Raises:
            ValueError: if the arguments are a string that is not a JSON object.
        """
        if not self.args:
            return {}
        if isinstance(self.args, dict):
            return self.args
        parsed = pydantic_core.from_json(self.args)
        if not isinstance(parsed, dict):
            raise ValueError(f'Tool call arguments must be a JSON object, got {type(parsed).__name__}')
        return parsed  # pyright: ignore[reportUnknownVariableType]

    def args_as_json_str(self) -> str:
        """The arguments as a JSON string."""
        if not self.args:
            return '{}'
        if isinstance(self.args, str):
            return self.args
        return json.dumps(self.args, ensure_ascii=False)

    def has_content(self) -> bool:
        """Whether the call has a name or arguments yet."""
        return bool(self.tool_name or self.args)

    def __repr__(self) -> str:
        return (
            f'{type(self).__name__}(tool_name={self.tool_name!r}, args={self.args!r}, '
            f'tool_call_id={self.tool_call_id!r})'
        )


@dataclass(repr=False)
class ToolCallPart(BaseToolCallPart):
    """A call to a function tool (or an output tool) made by the model."""

    _: KW_ONLY
    part_kind: Literal['tool-call'] = 'tool-call'


@dataclass(repr=False)
class NativeToolCallPart(BaseToolCallPart):
    """A call to a tool the provider runs itself (web search, code execution, ...)."""

    _: KW_ONLY
    provider_name: str | None = None
    """The provider that ran the tool."""
    part_kind: Literal['builtin-tool-call'] = 'builtin-tool-call'


@dataclass(repr=False)
class NativeToolReturnPart(BaseToolReturnPart):
    """The result of a provider-run tool, as reported by the provider."""

    _: KW_ONLY
    provider_name: str | None = None
    """The provider that ran the tool."""
    part_kind: Literal['builtin-tool-return'] = 'builtin-tool-return'


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
    part_kind: Literal['file'] = 'file'

    def has_content(self) -> bool:
        """Whether the file has any bytes."""
        return bool(self.content.data)

    def __repr__(self) -> str:
        return f'FilePart(content={self.content!r})'


ModelResponsePart: TypeAlias = Annotated[
    TextPart | ThinkingPart | ToolCallPart | NativeToolCallPart | NativeToolReturnPart | FilePart,
    pydantic.Discriminator('part_kind'),
]
"""A part of a model's response."""

FinishReason: TypeAlias = Literal['stop', 'length', 'content_filter', 'tool_call', 'error']
"""Why the model stopped generating."""


# ----- messages -----


@dataclass(repr=False)
class ModelRequest:
    """A request sent to the model: prompts, tool results and retry prompts."""

    parts: Sequence[ModelRequestPart]
    """The parts of the request."""
    _: KW_ONLY
    instructions: str | None = None
    """The instructions in force for this request (sent separately from the history by most models)."""
    run_id: str | None = None
    """The agent run that created the message."""
    conversation_id: str | None = None
    """The conversation the message belongs to."""
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
    provider_details: dict[str, Any] | None = None
    """Provider-specific details about the response."""
    provider_response_id: str | None = None
    """The provider's id for the response."""
    finish_reason: FinishReason | None = None
    """Why the model stopped."""
    run_id: str | None = None
    """The agent run that created the message."""
    conversation_id: str | None = None
    """The conversation the message belongs to."""
    kind: Literal['response'] = 'response'

    @property
    def text(self) -> str | None:
        """The concatenated text parts, or `None` if there are none."""
        texts = [part.content for part in self.parts if isinstance(part, TextPart)]
        return ''.join(texts) if texts else None

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
