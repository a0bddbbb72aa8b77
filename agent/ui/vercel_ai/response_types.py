"""The chunks of the Vercel AI SDK's UI message stream (AI SDK v6's `uiMessageChunkSchema`).

Each chunk is sent as one Server-Sent Event, `data: <json>\\n\\n`, and the stream ends with `data: [DONE]\\n\\n`
(`DoneChunk`). `tool-approval-request` and `tool-output-denied` need AI SDK v6; `encode(sdk_version)` drops what
an older client would reject.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import Field

from ._models import CamelBaseModel, JSONValue, ProviderMetadata

__all__ = (
    'AbortChunk',
    'BaseChunk',
    'DataChunk',
    'DoneChunk',
    'ErrorChunk',
    'FileChunk',
    'FinishChunk',
    'FinishReason',
    'FinishStepChunk',
    'MessageMetadataChunk',
    'ProviderMetadata',
    'ReasoningDeltaChunk',
    'ReasoningEndChunk',
    'ReasoningStartChunk',
    'SourceDocumentChunk',
    'SourceUrlChunk',
    'StartChunk',
    'StartStepChunk',
    'TextDeltaChunk',
    'TextEndChunk',
    'TextStartChunk',
    'ToolApprovalRequestChunk',
    'ToolInputAvailableChunk',
    'ToolInputDeltaChunk',
    'ToolInputErrorChunk',
    'ToolInputStartChunk',
    'ToolOutputAvailableChunk',
    'ToolOutputDeniedChunk',
    'ToolOutputErrorChunk',
)

FinishReason: TypeAlias = Literal['stop', 'length', 'content-filter', 'tool-calls', 'error', 'other'] | None
"""Why the model stopped, in the AI SDK's words."""


class BaseChunk(CamelBaseModel):
    """Base of every stream chunk."""

    def encode(self, sdk_version: int) -> str:
        """The chunk's JSON for an SSE `data:` line, for a client of the given AI SDK major version."""
        del sdk_version  # the same for every version unless a chunk says otherwise
        return self.model_dump_json(by_alias=True, exclude_none=True)


class StartChunk(BaseChunk):
    """Opens the assistant message."""

    type: Literal['start'] = 'start'
    message_id: str | None = None
    """The assistant message's id (the client makes one up when absent)."""
    message_metadata: JSONValue = None
    """Metadata for the message."""


class FinishChunk(BaseChunk):
    """Closes the assistant message."""

    type: Literal['finish'] = 'finish'
    finish_reason: FinishReason = None
    """Why the model stopped."""
    message_metadata: JSONValue = None
    """Metadata for the message."""


class AbortChunk(BaseChunk):
    """Says the run was aborted."""

    type: Literal['abort'] = 'abort'
    reason: str | None = None
    """Why."""


class MessageMetadataChunk(BaseChunk):
    """Metadata merged into the assistant message's metadata."""

    type: Literal['message-metadata'] = 'message-metadata'
    message_metadata: JSONValue
    """The metadata."""


class StartStepChunk(BaseChunk):
    """Opens a step (one model response and the tool calls it made)."""

    type: Literal['start-step'] = 'start-step'


class FinishStepChunk(BaseChunk):
    """Closes a step."""

    type: Literal['finish-step'] = 'finish-step'


class ErrorChunk(BaseChunk):
    """Reports an error to the client (`useChat` sets its `error`)."""

    type: Literal['error'] = 'error'
    error_text: str
    """What went wrong."""


class TextStartChunk(BaseChunk):
    """Opens a text part."""

    type: Literal['text-start'] = 'text-start'
    id: str
    """The text part's id, repeated by its deltas and its end."""
    provider_metadata: ProviderMetadata | None = None
    """Provider metadata."""


class TextDeltaChunk(BaseChunk):
    """Appends to a text part."""

    type: Literal['text-delta'] = 'text-delta'
    id: str
    """The text part's id."""
    delta: str
    """The text to append."""
    provider_metadata: ProviderMetadata | None = None
    """Provider metadata."""


class TextEndChunk(BaseChunk):
    """Closes a text part."""

    type: Literal['text-end'] = 'text-end'
    id: str
    """The text part's id."""
    provider_metadata: ProviderMetadata | None = None
    """Provider metadata."""


class ReasoningStartChunk(BaseChunk):
    """Opens a reasoning part."""

    type: Literal['reasoning-start'] = 'reasoning-start'
    id: str
    """The reasoning part's id."""
    provider_metadata: ProviderMetadata | None = None
    """Provider metadata."""


class ReasoningDeltaChunk(BaseChunk):
    """Appends to a reasoning part."""

    type: Literal['reasoning-delta'] = 'reasoning-delta'
    id: str
    """The reasoning part's id."""
    delta: str
    """The text to append."""
    provider_metadata: ProviderMetadata | None = None
    """Provider metadata."""


class ReasoningEndChunk(BaseChunk):
    """Closes a reasoning part."""

    type: Literal['reasoning-end'] = 'reasoning-end'
    id: str
    """The reasoning part's id."""
    provider_metadata: ProviderMetadata | None = None
    """Provider metadata (the signature arrives here)."""


class ToolInputStartChunk(BaseChunk):
    """Opens a tool call whose arguments will stream."""

    type: Literal['tool-input-start'] = 'tool-input-start'
    tool_call_id: str
    """The call's id."""
    tool_name: str
    """The tool's name."""
    provider_executed: bool | None = None
    """Whether the provider runs the tool."""
    provider_metadata: ProviderMetadata | None = None
    """Provider metadata."""
    dynamic: bool | None = None
    """Whether the client should show it as a `dynamic-tool` part."""
    title: str | None = None
    """A display title."""

    def encode(self, sdk_version: int) -> str:
        """v5 clients do not know `providerMetadata` on this chunk, so it is left out for them."""
        exclude = {'provider_metadata'} if sdk_version < 6 else None
        return self.model_dump_json(by_alias=True, exclude_none=True, exclude=exclude)


class ToolInputDeltaChunk(BaseChunk):
    """Appends argument text to a tool call."""

    type: Literal['tool-input-delta'] = 'tool-input-delta'
    tool_call_id: str
    """The call's id."""
    input_text_delta: str
    """The argument text to append."""


class ToolInputAvailableChunk(BaseChunk):
    """A tool call's complete arguments."""

    type: Literal['tool-input-available'] = 'tool-input-available'
    tool_call_id: str
    """The call's id."""
    tool_name: str
    """The tool's name."""
    input: JSONValue
    """The arguments."""
    provider_executed: bool | None = None
    """Whether the provider runs the tool."""
    provider_metadata: ProviderMetadata | None = None
    """Provider metadata."""
    dynamic: bool | None = None
    """Whether the client should show it as a `dynamic-tool` part."""
    title: str | None = None
    """A display title."""


class ToolInputErrorChunk(BaseChunk):
    """A tool call whose arguments were invalid (AI SDK v6)."""

    type: Literal['tool-input-error'] = 'tool-input-error'
    tool_call_id: str
    """The call's id."""
    tool_name: str
    """The tool's name."""
    input: JSONValue
    """The arguments as the model sent them."""
    error_text: str
    """What was wrong with them."""
    provider_executed: bool | None = None
    """Whether the provider runs the tool."""
    provider_metadata: ProviderMetadata | None = None
    """Provider metadata."""
    dynamic: bool | None = None
    """Whether the client should show it as a `dynamic-tool` part."""


class ToolApprovalRequestChunk(BaseChunk):
    """Asks the user to approve a tool call (AI SDK v6); the client answers in its next request."""

    type: Literal['tool-approval-request'] = 'tool-approval-request'
    approval_id: str
    """The approval's id."""
    tool_call_id: str
    """The call that needs approval."""


class ToolOutputAvailableChunk(BaseChunk):
    """A tool call's result."""

    type: Literal['tool-output-available'] = 'tool-output-available'
    tool_call_id: str
    """The call's id."""
    output: JSONValue
    """The result."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    dynamic: bool | None = None
    """Whether the client should show it as a `dynamic-tool` part."""
    preliminary: bool | None = None
    """Whether a later result will replace this one."""


class ToolOutputErrorChunk(BaseChunk):
    """A tool call that failed."""

    type: Literal['tool-output-error'] = 'tool-output-error'
    tool_call_id: str
    """The call's id."""
    error_text: str
    """What went wrong."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    dynamic: bool | None = None
    """Whether the client should show it as a `dynamic-tool` part."""


class ToolOutputDeniedChunk(BaseChunk):
    """A tool call the user denied (AI SDK v6)."""

    type: Literal['tool-output-denied'] = 'tool-output-denied'
    tool_call_id: str
    """The call's id."""


class SourceUrlChunk(BaseChunk):
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


class SourceDocumentChunk(BaseChunk):
    """A document the answer cites."""

    type: Literal['source-document'] = 'source-document'
    source_id: str
    """The source's id."""
    media_type: str
    """The document's media type."""
    title: str
    """The document's title."""
    filename: str | None = None
    """The document's file name."""
    provider_metadata: ProviderMetadata | None = None
    """Provider metadata."""


class FileChunk(BaseChunk):
    """A file the model produced."""

    type: Literal['file'] = 'file'
    url: str
    """Where the file is (a `data:` URL for generated files)."""
    media_type: str
    """The file's media type."""
    provider_metadata: ProviderMetadata | None = None
    """Provider metadata."""


class DataChunk(BaseChunk):
    """Application data for the front end (`data-<name>`)."""

    type: Annotated[str, Field(pattern=r'^data-')]
    """`data-` followed by the data part's name."""
    id: str | None = None
    """The data part's id (a later chunk with the same id replaces it)."""
    data: JSONValue
    """The data."""
    transient: bool | None = None
    """Whether the client should show the data without keeping it in the message."""


class DoneChunk(BaseChunk):
    """The end of the stream, sent as the SSE line `data: [DONE]`."""

    type: Literal['done'] = 'done'

    def encode(self, sdk_version: int) -> str:
        """Always `[DONE]`."""
        del sdk_version
        return '[DONE]'
