"""The Vercel AI SDK's request body and UI messages, as sent by `useChat` (AI SDK v6).

A chat request is `{id, messages, trigger, messageId?, ...extra body}`; each UI message has a role and a list of
parts. Tool parts come in two spellings (`tool-<name>` for tools the client knows statically, `dynamic-tool` with
a `toolName` for the rest) and seven states; the state decides which fields a part carries, so each state is its
own model and the union is discriminated on `type` and `state` together. Approval states (`approval-requested`,
`approval-responded`, `output-denied`) need AI SDK v6.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias, cast

from pydantic import Discriminator, Field, StrictBool, Tag

from ._models import CamelBaseModel, JSONValue, ProviderMetadata

__all__ = (
    'BaseUIPart',
    'DataUIPart',
    'DynamicToolApprovalRequestedPart',
    'DynamicToolApprovalRespondedPart',
    'DynamicToolInputAvailablePart',
    'DynamicToolInputStreamingPart',
    'DynamicToolOutputAvailablePart',
    'DynamicToolOutputDeniedPart',
    'DynamicToolOutputErrorPart',
    'DynamicToolUIPart',
    'FileUIPart',
    'JSONValue',
    'ProviderMetadata',
    'ReasoningUIPart',
    'RegenerateMessage',
    'RequestData',
    'SourceDocumentUIPart',
    'SourceUrlUIPart',
    'StepStartUIPart',
    'SubmitMessage',
    'TextUIPart',
    'ToolApproval',
    'ToolApprovalRequested',
    'ToolApprovalRequestedPart',
    'ToolApprovalResponded',
    'ToolApprovalRespondedPart',
    'ToolInputAvailablePart',
    'ToolInputStreamingPart',
    'ToolOutputAvailablePart',
    'ToolOutputDeniedPart',
    'ToolOutputErrorPart',
    'ToolUIPart',
    'UIMessage',
    'UIMessagePart',
)


class BaseUIPart(CamelBaseModel):
    """Base of every UI message part."""


class TextUIPart(BaseUIPart):
    """Text in a message."""

    type: Literal['text'] = 'text'
    text: str
    """The text."""
    state: Literal['streaming', 'done'] | None = None
    """Whether the text is still streaming."""
    provider_metadata: ProviderMetadata | None = None
    """Provider metadata (this adapter keeps part ids and provider details here)."""


class ReasoningUIPart(BaseUIPart):
    """The model's reasoning (a thinking part)."""

    type: Literal['reasoning'] = 'reasoning'
    id: str | None = None
    """The reasoning part's id."""
    text: str
    """The reasoning text."""
    state: Literal['streaming', 'done'] | None = None
    """Whether the reasoning is still streaming."""
    provider_metadata: ProviderMetadata | None = None
    """Provider metadata (this adapter keeps the thinking signature and provider details here)."""


class SourceUrlUIPart(BaseUIPart):
    """A URL the answer cites."""

    type: Literal['source-url'] = 'source-url'
    source_id: str
    """The source's id."""
    url: str
    """The URL."""
    title: str | None = None
    """The source's title."""
    provider_metadata: ProviderMetadata | None = None
    """Provider metadata."""


class SourceDocumentUIPart(BaseUIPart):
    """A document the answer cites."""

    type: Literal['source-document'] = 'source-document'
    source_id: str
    """The source's id."""
    media_type: str
    """The document's IANA media type."""
    title: str
    """The document's title."""
    filename: str | None = None
    """The document's file name."""
    provider_metadata: ProviderMetadata | None = None
    """Provider metadata."""


class FileUIPart(BaseUIPart):
    """A file: an uploaded attachment in a user message, or a file the model produced."""

    type: Literal['file'] = 'file'
    media_type: str
    """The file's IANA media type."""
    filename: str | None = None
    """The file's name."""
    url: str
    """Where the file is: a hosted URL or a `data:` URL holding the bytes."""
    provider_metadata: ProviderMetadata | None = None
    """Provider metadata."""


class StepStartUIPart(BaseUIPart):
    """Marks where a new step (one model response) starts in an assistant message."""

    type: Literal['step-start'] = 'step-start'


class DataUIPart(BaseUIPart):
    """Application data (`data-<name>` parts), shown by the front end; never sent to the model."""

    type: Annotated[str, Field(pattern=r'^data-')]
    """`data-` followed by the data part's name."""
    id: str | None = None
    """The data part's id (a later part with the same id replaces it)."""
    data: JSONValue
    """The data."""


class ToolApprovalRequested(CamelBaseModel):
    """An approval the server asked for and the user has not answered yet."""

    id: str
    """The approval's id."""


class ToolApprovalResponded(CamelBaseModel):
    """The user's answer to an approval request."""

    id: str
    """The approval's id."""
    # Strict: this boolean is what lets a `requires_approval` tool run, so `1` or `'true'` must not pass
    # for an approval; a non-boolean rejects the request (422) instead.
    approved: StrictBool
    """Whether the user approved the call."""
    reason: str | None = None
    """Why the user approved or denied it (a denial's reason reaches the model)."""


ToolApproval: TypeAlias = ToolApprovalRequested | ToolApprovalResponded
"""An approval in either state."""


# ----- tool parts: the fields every state shares, then one model per (spelling, state) -----


class _ToolPartBase(BaseUIPart):
    tool_call_id: str
    """The tool call's id."""
    title: str | None = None
    """A display title for the call."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool (a native tool) rather than the server."""
    call_provider_metadata: ProviderMetadata | None = None
    """Provider metadata of the call (this adapter keeps part ids and provider details here)."""


class _StaticToolPart(_ToolPartBase):
    type: Annotated[str, Field(pattern=r'^tool-')]
    """`tool-` followed by the tool's name."""


class _DynamicToolPart(_ToolPartBase):
    type: Literal['dynamic-tool'] = 'dynamic-tool'
    tool_name: str
    """The tool's name."""


class _InputStreaming(CamelBaseModel):
    state: Literal['input-streaming'] = 'input-streaming'
    input: JSONValue = None
    """The arguments parsed so far."""
    approval: ToolApproval | None = None
    """Not used in this state."""


class _InputAvailable(CamelBaseModel):
    state: Literal['input-available'] = 'input-available'
    input: JSONValue = None
    """The arguments."""
    approval: ToolApproval | None = None
    """Not used in this state."""


class _ApprovalRequested(CamelBaseModel):
    state: Literal['approval-requested'] = 'approval-requested'
    input: JSONValue = None
    """The arguments."""
    approval: ToolApproval | None = None
    """The pending approval."""


class _ApprovalResponded(CamelBaseModel):
    state: Literal['approval-responded'] = 'approval-responded'
    input: JSONValue = None
    """The arguments."""
    # Only an answer, so an answer with a non-boolean `approved` is a 422 rather than taken for something else.
    approval: ToolApprovalResponded | None = None
    """The user's answer; the adapter turns it into `DeferredToolResults`."""


class _OutputAvailable(CamelBaseModel):
    state: Literal['output-available'] = 'output-available'
    input: JSONValue = None
    """The arguments."""
    output: JSONValue = None
    """The tool's result."""
    preliminary: bool | None = None
    """Whether this is a preliminary result."""
    approval: ToolApprovalResponded | None = None
    """The approval the call had, if it needed one."""


class _OutputError(CamelBaseModel):
    state: Literal['output-error'] = 'output-error'
    input: JSONValue = None
    """The arguments."""
    raw_input: JSONValue = None
    """The raw arguments, when they could not be parsed."""
    error_text: str
    """What went wrong."""
    approval: ToolApprovalResponded | None = None
    """The approval the call had, if it needed one."""


class _OutputDenied(CamelBaseModel):
    state: Literal['output-denied'] = 'output-denied'
    input: JSONValue = None
    """The arguments."""
    approval: ToolApprovalResponded | None = None
    """The denial, with the user's reason."""


class ToolInputStreamingPart(_InputStreaming, _StaticToolPart):
    """A static tool call whose arguments are still streaming."""


class ToolInputAvailablePart(_InputAvailable, _StaticToolPart):
    """A static tool call with its arguments, not yet answered."""


class ToolApprovalRequestedPart(_ApprovalRequested, _StaticToolPart):
    """A static tool call waiting for the user's approval."""


class ToolApprovalRespondedPart(_ApprovalResponded, _StaticToolPart):
    """A static tool call the user approved or denied, not yet run."""


class ToolOutputAvailablePart(_OutputAvailable, _StaticToolPart):
    """A static tool call with its result."""


class ToolOutputErrorPart(_OutputError, _StaticToolPart):
    """A static tool call that failed."""


class ToolOutputDeniedPart(_OutputDenied, _StaticToolPart):
    """A static tool call the user denied (final)."""


class DynamicToolInputStreamingPart(_InputStreaming, _DynamicToolPart):
    """A dynamic tool call whose arguments are still streaming."""


class DynamicToolInputAvailablePart(_InputAvailable, _DynamicToolPart):
    """A dynamic tool call with its arguments, not yet answered."""


class DynamicToolApprovalRequestedPart(_ApprovalRequested, _DynamicToolPart):
    """A dynamic tool call waiting for the user's approval."""


class DynamicToolApprovalRespondedPart(_ApprovalResponded, _DynamicToolPart):
    """A dynamic tool call the user approved or denied, not yet run."""


class DynamicToolOutputAvailablePart(_OutputAvailable, _DynamicToolPart):
    """A dynamic tool call with its result."""


class DynamicToolOutputErrorPart(_OutputError, _DynamicToolPart):
    """A dynamic tool call that failed."""


class DynamicToolOutputDeniedPart(_OutputDenied, _DynamicToolPart):
    """A dynamic tool call the user denied (final)."""


ToolUIPart: TypeAlias = (
    ToolInputStreamingPart
    | ToolInputAvailablePart
    | ToolApprovalRequestedPart
    | ToolApprovalRespondedPart
    | ToolOutputAvailablePart
    | ToolOutputErrorPart
    | ToolOutputDeniedPart
)
"""A `tool-<name>` part in any state."""

DynamicToolUIPart: TypeAlias = (
    DynamicToolInputStreamingPart
    | DynamicToolInputAvailablePart
    | DynamicToolApprovalRequestedPart
    | DynamicToolApprovalRespondedPart
    | DynamicToolOutputAvailablePart
    | DynamicToolOutputErrorPart
    | DynamicToolOutputDeniedPart
)
"""A `dynamic-tool` part in any state."""

_TOOL_STATES = (
    'input-streaming',
    'input-available',
    'approval-requested',
    'approval-responded',
    'output-available',
    'output-error',
    'output-denied',
)
_SIMPLE_TYPES = frozenset({'text', 'reasoning', 'source-url', 'source-document', 'file', 'step-start'})


def _part_tag(value: Any) -> str | None:
    """The union member for a part: its `type`, or for tool parts the spelling and the `state`."""
    if isinstance(value, dict):
        fields = cast(dict[str, Any], value)
        part_type, state = fields.get('type'), fields.get('state')
    else:
        part_type, state = getattr(value, 'type', None), getattr(value, 'state', None)
    if not isinstance(part_type, str):
        return None
    if part_type in _SIMPLE_TYPES:
        return part_type
    if part_type.startswith('data-'):
        return 'data'
    if state not in _TOOL_STATES:
        return None
    if part_type == 'dynamic-tool':
        return f'dynamic-tool:{state}'
    if part_type.startswith('tool-'):
        return f'tool:{state}'
    return None


UIMessagePart: TypeAlias = Annotated[
    Annotated[TextUIPart, Tag('text')]
    | Annotated[ReasoningUIPart, Tag('reasoning')]
    | Annotated[SourceUrlUIPart, Tag('source-url')]
    | Annotated[SourceDocumentUIPart, Tag('source-document')]
    | Annotated[FileUIPart, Tag('file')]
    | Annotated[StepStartUIPart, Tag('step-start')]
    | Annotated[DataUIPart, Tag('data')]
    | Annotated[ToolInputStreamingPart, Tag('tool:input-streaming')]
    | Annotated[ToolInputAvailablePart, Tag('tool:input-available')]
    | Annotated[ToolApprovalRequestedPart, Tag('tool:approval-requested')]
    | Annotated[ToolApprovalRespondedPart, Tag('tool:approval-responded')]
    | Annotated[ToolOutputAvailablePart, Tag('tool:output-available')]
    | Annotated[ToolOutputErrorPart, Tag('tool:output-error')]
    | Annotated[ToolOutputDeniedPart, Tag('tool:output-denied')]
    | Annotated[DynamicToolInputStreamingPart, Tag('dynamic-tool:input-streaming')]
    | Annotated[DynamicToolInputAvailablePart, Tag('dynamic-tool:input-available')]
    | Annotated[DynamicToolApprovalRequestedPart, Tag('dynamic-tool:approval-requested')]
    | Annotated[DynamicToolApprovalRespondedPart, Tag('dynamic-tool:approval-responded')]
    | Annotated[DynamicToolOutputAvailablePart, Tag('dynamic-tool:output-available')]
    | Annotated[DynamicToolOutputErrorPart, Tag('dynamic-tool:output-error')]
    | Annotated[DynamicToolOutputDeniedPart, Tag('dynamic-tool:output-denied')],
    Discriminator(
        _part_tag,
        custom_error_type='invalid_ui_part',
        custom_error_message=(
            'A UI message part needs a known `type` (text, reasoning, file, source-url, source-document, step-start, '
            'data-*, tool-*, dynamic-tool), and tool parts a known `state`'
        ),
    ),
]
"""Any part of a UI message."""


class UIMessage(CamelBaseModel):
    """A message as the chat UI holds it."""

    id: str
    """The message's id."""
    role: Literal['system', 'user', 'assistant']
    """Who the message is from."""
    metadata: JSONValue = None
    """Application metadata of the message."""
    parts: list[UIMessagePart]
    """The message's content, in order."""


class SubmitMessage(CamelBaseModel, extra='allow'):
    """A request to answer the chat's latest message (fields added with `useChat`'s `body` are kept as extras)."""

    trigger: Literal['submit-message'] = 'submit-message'
    id: str
    """The chat's id."""
    messages: list[UIMessage]
    """The whole chat so far."""
    message_id: str | None = None
    """The id of the message being replaced, when the user edited one."""


class RegenerateMessage(CamelBaseModel, extra='allow'):
    """A request to generate the last assistant message again."""

    trigger: Literal['regenerate-message']
    id: str
    """The chat's id."""
    messages: list[UIMessage]
    """The chat up to the message to regenerate."""
    message_id: str | None = None
    """The id of the message to regenerate."""


def _trigger_tag(value: Any) -> str:
    # `useChat` always sends `trigger`; a body without one is treated as a plain submit.
    trigger: Any = (
        cast(dict[str, Any], value).get('trigger') if isinstance(value, dict) else getattr(value, 'trigger', None)
    )
    return 'submit-message' if trigger is None else str(trigger)


RequestData: TypeAlias = Annotated[
    Annotated[SubmitMessage, Tag('submit-message')] | Annotated[RegenerateMessage, Tag('regenerate-message')],
    Discriminator(_trigger_tag),
]
"""The body of a `useChat` request."""
