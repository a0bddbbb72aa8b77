"""UI messages (what `useChat` sends) as agent messages.

An assistant UI message may hold several steps (`step-start` parts): each step is one model response, and the
results of its tool calls form the request after it. A tool part with an output stands for both, so within a step
the calls are added as they come and the results are held back until the step ends; a `MessagesBuilder` then
starts a new message whenever a request part follows response parts or the other way round.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent._content import AudioUrl, BinaryContent, DocumentUrl, ImageUrl, UserContent, VideoUrl
from agent._parts import FilePart, ModelMessage, SystemPromptPart, TextPart, ThinkingPart, UserPromptPart
from agent._tool_parts import NativeToolCallPart, NativeToolReturnPart, ToolCallPart, ToolReturnPart, revive_content
from agent.tools import ToolDenied
from agent.ui._messages_builder import MessagesBuilder

from ._utils import apply_message_metadata, dict_field, load_provider_metadata, string_field
from .request_types import (
    DynamicToolOutputAvailablePart,
    DynamicToolOutputDeniedPart,
    DynamicToolOutputErrorPart,
    FileUIPart,
    ReasoningUIPart,
    StepStartUIPart,
    TextUIPart,
    ToolApprovalResponded,
    ToolOutputAvailablePart,
    ToolOutputDeniedPart,
    ToolOutputErrorPart,
    UIMessage,
)

__all__ = ('load_ui_messages',)

_URL_TYPES: dict[str, type[ImageUrl | AudioUrl | VideoUrl]] = {'image': ImageUrl, 'audio': AudioUrl, 'video': VideoUrl}
_STATIC_TOOL_TYPES = (
    ToolOutputAvailablePart,
    ToolOutputErrorPart,
    ToolOutputDeniedPart,
)
_DYNAMIC_TOOL_TYPES = (
    DynamicToolOutputAvailablePart,
    DynamicToolOutputErrorPart,
    DynamicToolOutputDeniedPart,
)


def load_ui_messages(messages: Sequence[UIMessage]) -> list[ModelMessage]:
    """The agent messages for a list of UI messages (data, source and step parts carry nothing for the model)."""
    builder = MessagesBuilder()
    for message in messages:
        count = len(builder.messages)
        if message.role == 'system':
            for part in message.parts:
                if isinstance(part, TextUIPart):
                    builder.add(SystemPromptPart(part.text))
        elif message.role == 'user':
            content = _user_content(message)
            if content:
                builder.add(
                    UserPromptPart(content[0] if len(content) == 1 and isinstance(content[0], str) else content)
                )
        else:
            builder.start_message()  # each assistant message is a response of its own
            _load_assistant(message, builder)
        if message.metadata is not None and builder.messages:
            # A request's metadata is on its last UI message; a response's, on the one that made it.
            target = (
                builder.messages[-1]
                if message.role != 'assistant'
                else builder.messages[min(count, len(builder.messages) - 1)]
            )
            apply_message_metadata(target, message.metadata)
    return builder.messages


def _user_content(message: UIMessage) -> list[UserContent]:
    content: list[UserContent] = []
    for part in message.parts:
        if isinstance(part, TextUIPart):
            content.append(part.text)
        elif isinstance(part, FileUIPart):
            content.append(_file_content(part))
    return content


def _file_content(part: FileUIPart) -> UserContent:
    if part.url.startswith('data:'):
        return BinaryContent.from_data_uri(part.url)
    url_type = _URL_TYPES.get(part.media_type.split('/', 1)[0], DocumentUrl)
    return url_type(url=part.url, media_type=part.media_type)


def _load_assistant(message: UIMessage, builder: MessagesBuilder) -> None:
    step_results: list[ToolReturnPart] = []
    for part in message.parts:
        if isinstance(part, StepStartUIPart):
            _flush(step_results, builder)
            builder.start_message()
        elif isinstance(part, TextUIPart):
            meta = load_provider_metadata(part.provider_metadata)
            builder.add(
                TextPart(
                    part.text,
                    id=string_field(meta, 'id'),
                    provider_name=string_field(meta, 'provider_name'),
                    provider_details=dict_field(meta, 'provider_details'),
                )
            )
        elif isinstance(part, ReasoningUIPart):
            meta = load_provider_metadata(part.provider_metadata)
            builder.add(
                ThinkingPart(
                    part.text,
                    id=string_field(meta, 'id'),
                    # A reasoning part cut off mid-stream has no valid signature to send back.
                    signature=None if part.state == 'streaming' else string_field(meta, 'signature'),
                    provider_name=string_field(meta, 'provider_name'),
                    provider_details=dict_field(meta, 'provider_details'),
                )
            )
        elif isinstance(part, FileUIPart):
            # Files the model produced travel as `data:` URLs; a hosted URL has no bytes to give a `FilePart`.
            if part.url.startswith('data:'):
                builder.add(FilePart(BinaryContent.from_data_uri(part.url)))
        elif part.type.startswith('tool-') or part.type == 'dynamic-tool':
            _load_tool_part(part, builder, step_results)
    _flush(step_results, builder)


def _flush(step_results: list[ToolReturnPart], builder: MessagesBuilder) -> None:
    for result in step_results:
        builder.add(result)
    step_results.clear()


def _load_tool_part(part: Any, builder: MessagesBuilder, step_results: list[ToolReturnPart]) -> None:
    tool_name: str = part.tool_name if part.type == 'dynamic-tool' else part.type.removeprefix('tool-')
    call_id: str = part.tool_call_id
    meta = load_provider_metadata(part.call_provider_metadata)
    # A native tool's part carries the call's and the result's provider fields apart (see `_dump`).
    call_meta = dict_field(meta, 'call_meta') or meta
    return_meta = dict_field(meta, 'return_meta') or {}
    fields: dict[str, Any] = {
        'id': string_field(call_meta, 'id'),
        'provider_name': string_field(call_meta, 'provider_name'),
        'provider_details': dict_field(call_meta, 'provider_details'),
    }
    args = _args(part.input)
    outcome, content = _result(part)
    if part.provider_executed:
        builder.add(NativeToolCallPart(tool_name, args, call_id, **fields))
        if outcome is not None:
            builder.add(
                NativeToolReturnPart(
                    tool_name,
                    content,
                    call_id,
                    outcome=outcome,
                    provider_name=string_field(return_meta, 'provider_name') or fields['provider_name'],
                    provider_details=dict_field(return_meta, 'provider_details'),
                )
            )
        return
    builder.add(ToolCallPart(tool_name, args, call_id, **fields))
    if outcome is not None:
        step_results.append(ToolReturnPart(tool_name, content, call_id, outcome=outcome))


def _args(value: Any) -> str | dict[str, Any] | None:
    if value is None or isinstance(value, dict):
        return value  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            return value
        return parsed if isinstance(parsed, dict) else value  # pyright: ignore[reportUnknownVariableType]
    # Arguments must be an object; anything else is kept as JSON text so the model sees what it sent.
    return json.dumps(value)


def _result(part: Any) -> tuple[Any, Any]:
    """The outcome and content of a tool part's result, or `(None, None)` when it has none yet."""
    if not isinstance(part, _STATIC_TOOL_TYPES + _DYNAMIC_TOOL_TYPES):
        return None, None
    if isinstance(part, ToolOutputErrorPart | DynamicToolOutputErrorPart):
        return 'failed', part.error_text
    if isinstance(part, ToolOutputDeniedPart | DynamicToolOutputDeniedPart):
        approval = part.approval
        reason = approval.reason if isinstance(approval, ToolApprovalResponded) else None
        return 'denied', reason or ToolDenied().message
    return 'success', revive_content(part.output)
