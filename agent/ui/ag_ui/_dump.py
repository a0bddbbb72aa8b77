"""The agent's messages to AG-UI messages (`AGUIAdapter.dump_messages`), the inverse of `_load`.

A response's text and tool calls become one assistant message, broken where a part with a message of its own
(reasoning, a native tool's result, a file, a compaction) comes between, so the order of the parts survives.
Instructions are not dumped: they belong to the server and are applied to every run anyway.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    ActivityMessage,
    AssistantMessage,
    ContentPart,
    FunctionCall,
    Message,
    ReasoningMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from agent._env import uuid7
from agent._tool_parts import tool_return_content_str
from agent.messages import (
    AudioUrl,
    BinaryContent,
    CompactionPart,
    DocumentUrl,
    FilePart,
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UploadedFile,
    UserPromptPart,
    VideoUrl,
)

from ._content import COMPACTION_ACTIVITY_TYPE, FILE_ACTIVITY_TYPE, native_tool_call_id, user_content_to_parts
from ._utils import DEFAULT_AG_UI_VERSION, REASONING_VERSION, parse_ag_ui_version

__all__ = (
    'compaction_activity_content',
    'dump_messages',
    'file_activity_content',
    'thinking_encrypted_value',
    'tool_result_content',
)

_MEDIA = ImageUrl | AudioUrl | VideoUrl | DocumentUrl | BinaryContent | UploadedFile


def _new_id() -> str:
    return uuid7()


def dump_messages(
    messages: Sequence[ModelMessage], *, ag_ui_version: str = DEFAULT_AG_UI_VERSION, preserve_file_data: bool = False
) -> list[Message]:
    """AG-UI messages for the agent's messages.

    Thinking is left out for AG-UI versions before reasoning messages (0.1.13); files the model produced are
    included (as activity messages) only with `preserve_file_data`.
    """
    with_thinking = parse_ag_ui_version(ag_ui_version) >= REASONING_VERSION
    result: list[Message] = []
    for message in messages:
        if isinstance(message, ModelRequest):
            result.extend(_dump_request(message))
        else:
            dumper = _ResponseDumper(with_thinking=with_thinking, with_files=preserve_file_data)
            result.extend(dumper.dump(message))
    return result


def _dump_request(request: ModelRequest) -> list[Message]:
    messages: list[Message] = []
    for part in request.parts:
        match part:
            case SystemPromptPart():
                messages.append(SystemMessage(id=_new_id(), content=part.content))
            case UserPromptPart(content=str() as text):
                messages.append(UserMessage(id=_new_id(), content=text))
            case UserPromptPart():
                messages.append(UserMessage(id=_new_id(), content=user_content_to_parts(list(part.content))))
            case ToolReturnPart():
                messages.append(_tool_message(part.tool_call_id, part))
            case RetryPromptPart(tool_name=None):
                messages.append(UserMessage(id=_new_id(), content=part.model_response()))
            case RetryPromptPart():
                # The call failed as far as the frontend is concerned; the model was asked to try again.
                text = part.model_response()
                messages.append(ToolMessage(id=_new_id(), tool_call_id=part.tool_call_id, content=text, error=text))
    return messages


def tool_result_content(content: Any) -> str | list[ContentPart]:
    """A tool result as AG-UI content: text as is, media as content parts, anything else as JSON text."""
    if isinstance(content, str):
        return content
    if isinstance(content, _MEDIA):
        return user_content_to_parts(content)
    if isinstance(content, list):
        items: list[Any] = content  # pyright: ignore[reportUnknownVariableType]
        if all(isinstance(item, str | _MEDIA) for item in items) and any(isinstance(item, _MEDIA) for item in items):
            return user_content_to_parts(items)
    return tool_return_content_str(content)


def _tool_message(tool_call_id: str, part: ToolReturnPart | NativeToolReturnPart) -> ToolMessage:
    content = tool_result_content(part.content)
    error = None
    if part.outcome == 'failed':
        error = content if isinstance(content, str) else tool_return_content_str(part.content)
    return ToolMessage(id=_new_id(), tool_call_id=tool_call_id, content=content, error=error)


def thinking_encrypted_value(part: ThinkingPart) -> str | None:
    """The provider fields of a thinking part as the JSON kept in `encryptedValue`, or `None` when it has none."""
    fields = {
        'id': part.id,
        'signature': part.signature,
        'provider_name': part.provider_name,
        'provider_details': part.provider_details,
    }
    kept = {key: value for key, value in fields.items() if value is not None}
    return json.dumps(kept) if kept else None


@dataclass
class _ResponseDumper:
    """Collects a response's text and tool calls into assistant messages, in part order."""

    with_thinking: bool = True
    with_files: bool = True
    messages: list[Message] = field(default_factory=list[Message])
    text: list[str] = field(default_factory=list[str])
    calls: list[ToolCall] = field(default_factory=list[ToolCall])

    def dump(self, response: ModelResponse) -> list[Message]:
        for part in response.parts:
            match part:
                case TextPart():
                    self.text.append(part.content)
                case ToolCallPart():
                    self._call(part.tool_call_id, part)
                case NativeToolCallPart():
                    self._call(native_tool_call_id(part.tool_call_id, part.provider_name), part)
                case ThinkingPart() if self.with_thinking:
                    self._own_message(
                        ReasoningMessage(
                            id=_new_id(), content=part.content, encrypted_value=thinking_encrypted_value(part)
                        )
                    )
                case NativeToolReturnPart():
                    self._own_message(_tool_message(native_tool_call_id(part.tool_call_id, part.provider_name), part))
                case FilePart() if self.with_files:
                    self._own_message(_file_activity(part))
                case CompactionPart():
                    self._own_message(_compaction_activity(part))
                case _:
                    pass  # thinking or a file the caller leaves out
        self._flush()
        return self.messages

    def _call(self, tool_call_id: str, part: ToolCallPart | NativeToolCallPart) -> None:
        function = FunctionCall(name=part.tool_name, arguments=part.args_as_json_str())
        self.calls.append(ToolCall(id=tool_call_id, function=function))

    def _own_message(self, message: Message) -> None:
        self._flush()
        self.messages.append(message)

    def _flush(self) -> None:
        if self.text or self.calls:
            self.messages.append(
                AssistantMessage(id=_new_id(), content=''.join(self.text) or None, tool_calls=self.calls or None)
            )
        self.text = []
        self.calls = []


def file_activity_content(part: FilePart) -> dict[str, Any]:
    """The content of the activity message (or snapshot) showing a file the model produced."""
    content: dict[str, Any] = {'url': part.content.data_uri, 'media_type': part.content.media_type}
    if part.provider_name is not None:
        content['provider_name'] = part.provider_name
    return content


def compaction_activity_content(part: CompactionPart) -> dict[str, Any]:
    """The content of the activity message (or snapshot) holding a provider's compaction."""
    fields = {
        'content': part.content,
        'id': part.id,
        'provider_name': part.provider_name,
        'provider_details': part.provider_details,
    }
    return {key: value for key, value in fields.items() if value is not None}


def _file_activity(part: FilePart) -> ActivityMessage:
    return ActivityMessage(id=_new_id(), activity_type=FILE_ACTIVITY_TYPE, content=file_activity_content(part))


def _compaction_activity(part: CompactionPart) -> ActivityMessage:
    content = compaction_activity_content(part)
    return ActivityMessage(id=_new_id(), activity_type=COMPACTION_ACTIVITY_TYPE, content=content)
