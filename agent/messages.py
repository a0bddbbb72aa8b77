"""Messages exchanged with models, their parts, and the events streamed during a run.

A conversation history is a `list[ModelMessage]`; `ModelMessagesTypeAdapter` turns it into JSON and
back without losing any part's type:

```python
from agent.messages import ModelMessagesTypeAdapter

json_bytes = ModelMessagesTypeAdapter.dump_json(result.all_messages())
history = ModelMessagesTypeAdapter.validate_json(json_bytes)
```
"""

from __future__ import annotations

import pydantic

from ._content import (
    MULTI_MODAL_CONTENT_TYPES,
    AudioUrl,
    BinaryContent,
    BinaryImage,
    CachePoint,
    DocumentUrl,
    FileUrl,
    ForceDownloadMode,
    ImageUrl,
    MultiModalContent,
    TextContent,
    ToolReturn,
    UploadedFile,
    UploadedFileProviderName,
    UserContent,
    VideoUrl,
    is_multi_modal_content,
)
from ._events import (
    AgentStreamEvent,
    FinalResultEvent,
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    HandleResponseEvent,
    ModelResponsePartDelta,
    ModelResponseStreamEvent,
    OutputToolCallEvent,
    OutputToolResultEvent,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    TextPartDelta,
    ThinkingPartDelta,
    ToolCallEvent,
    ToolCallPartDelta,
    ToolResultEvent,
)
from ._media_types import (
    AudioFormat,
    AudioMediaType,
    DocumentFormat,
    DocumentMediaType,
    ImageFormat,
    ImageMediaType,
    VideoFormat,
    VideoMediaType,
)
from ._part_deltas import ProviderDetailsDelta
from ._parts import (
    BaseToolCallPart,
    BaseToolReturnPart,
    BuiltinToolCallPart,
    BuiltinToolReturnPart,
    CompactionPart,
    FilePart,
    FinishReason,
    InstructionPart,
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    ModelResponseState,
    NativeToolCallPart,
    NativeToolReturnPart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolPartKind,
    ToolReturnPart,
    UserPromptPart,
    tool_return_content_str,
)
from ._tool_parts import INVALID_JSON_KEY
from ._typed_tool_parts import LoadCapabilityCallPart, LoadCapabilityReturnPart
from .usage import RequestUsage

__all__ = (
    'INVALID_JSON_KEY',
    'MULTI_MODAL_CONTENT_TYPES',
    'AgentStreamEvent',
    'AudioFormat',
    'AudioMediaType',
    'AudioUrl',
    'BaseToolCallPart',
    'BaseToolReturnPart',
    'BinaryContent',
    'BinaryImage',
    'BuiltinToolCallPart',
    'BuiltinToolReturnPart',
    'CachePoint',
    'CompactionPart',
    'DocumentFormat',
    'DocumentMediaType',
    'DocumentUrl',
    'FilePart',
    'FileUrl',
    'FinalResultEvent',
    'FinishReason',
    'ForceDownloadMode',
    'FunctionToolCallEvent',
    'FunctionToolResultEvent',
    'HandleResponseEvent',
    'ImageFormat',
    'ImageMediaType',
    'ImageUrl',
    'InstructionPart',
    'LoadCapabilityCallPart',
    'LoadCapabilityReturnPart',
    'ModelMessage',
    'ModelMessagesTypeAdapter',
    'ModelRequest',
    'ModelRequestPart',
    'ModelResponse',
    'ModelResponsePart',
    'ModelResponsePartDelta',
    'ModelResponseState',
    'ModelResponseStreamEvent',
    'MultiModalContent',
    'NativeToolCallPart',
    'NativeToolReturnPart',
    'OutputToolCallEvent',
    'OutputToolResultEvent',
    'PartDeltaEvent',
    'PartEndEvent',
    'PartStartEvent',
    'ProviderDetailsDelta',
    'RequestUsage',
    'RetryPromptPart',
    'SystemPromptPart',
    'TextContent',
    'TextPart',
    'TextPartDelta',
    'ThinkingPart',
    'ThinkingPartDelta',
    'ToolCallEvent',
    'ToolCallPart',
    'ToolCallPartDelta',
    'ToolPartKind',
    'ToolResultEvent',
    'ToolReturn',
    'ToolReturnPart',
    'UploadedFile',
    'UploadedFileProviderName',
    'UserContent',
    'UserPromptPart',
    'VideoFormat',
    'VideoMediaType',
    'VideoUrl',
    'is_multi_modal_content',
    'tool_return_content_str',
)

ModelMessagesTypeAdapter: pydantic.TypeAdapter[list[ModelMessage]] = pydantic.TypeAdapter(
    list[ModelMessage], config=pydantic.ConfigDict(defer_build=True)
)
"""Validates and serializes a whole message history (`list[ModelMessage]`)."""
