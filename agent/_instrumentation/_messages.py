"""Messages as the GenAI semantic conventions write them: `gen_ai.input.messages`, `gen_ai.output.messages`.

A `ModelRequest` becomes one chat message per run of parts sharing a role (system prompts, user content, tool
results); a `ModelResponse` becomes one `assistant` message with its finish reason. Media is written as `uri`,
`blob` or `file` parts with their modality; the data of a `blob` is left out unless binary content is wanted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import groupby
from typing import TYPE_CHECKING, Any

import pydantic_core

from agent._content import BinaryContent, CachePoint, FileUrl, TextContent, UploadedFile
from agent._parts import (
    FilePart,
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

if TYPE_CHECKING:
    from ._settings import InstrumentationSettings

__all__ = ('input_messages', 'output_message', 'redact_binary', 'system_instructions', 'to_json_str')

_MODALITIES = ('image', 'audio', 'video')


def to_json_str(value: Any) -> str:
    """`value` as compact JSON; whatever JSON cannot hold is written as its `repr` (telemetry must never fail)."""
    return pydantic_core.to_json(value, fallback=repr, bytes_mode='base64').decode()


def redact_binary(value: Any, settings: InstrumentationSettings) -> Any:
    """`value` with the data of binary files dropped (kept as media type) unless binary content is wanted."""
    if settings.include_binary_content:
        return value
    return _redact(value, depth=0)


def _redact(value: Any, depth: int) -> Any:
    if depth > 20:  # a cycle or an absurdly deep value: stop rather than recurse forever
        return '<too deep>'
    if isinstance(value, BinaryContent):
        return {'kind': 'binary', 'media_type': value.media_type, 'identifier': value.identifier}
    if isinstance(value, Mapping):
        return {key: _redact(item, depth + 1) for key, item in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list | tuple):
        return [_redact(item, depth + 1) for item in value]  # pyright: ignore[reportUnknownVariableType]
    return value


def _modality(media_type: str | None) -> str | None:
    category = (media_type or '').split('/', 1)[0]
    return category if category in _MODALITIES else None


def _media_part(item: Any, settings: InstrumentationSettings) -> dict[str, Any] | None:
    if isinstance(item, str):
        return {'type': 'text', 'content': item}
    if isinstance(item, TextContent):
        return {'type': 'text', 'content': item.content}
    if isinstance(item, BinaryContent):
        part: dict[str, Any] = {'type': 'blob', 'mime_type': item.media_type}
        if settings.include_binary_content:
            part['content'] = item.base64
    elif isinstance(item, FileUrl):
        part = {'type': 'uri', 'uri': item.url, 'mime_type': item.media_type}
    elif isinstance(item, UploadedFile):
        part = {'type': 'file', 'file_id': item.file_id, 'mime_type': item.media_type}
    elif isinstance(item, CachePoint):
        return None
    else:
        return {'type': 'text', 'content': str(item)}
    if (modality := _modality(part.get('mime_type'))) is not None:
        part['modality'] = modality
    return {key: value for key, value in part.items() if value is not None}


def _tool_result(tool_call_id: str, name: str, result: Any, settings: InstrumentationSettings) -> dict[str, Any]:
    return {
        'type': 'tool_call_response',
        'id': tool_call_id,
        'name': name,
        'result': pydantic_core.to_jsonable_python(redact_binary(result, settings), fallback=repr),
    }


def _request_part(part: ModelRequestPart, settings: InstrumentationSettings) -> list[dict[str, Any]]:
    if isinstance(part, SystemPromptPart):
        return [{'type': 'text', 'content': part.content}]
    if isinstance(part, UserPromptPart):
        items: Sequence[Any] = [part.content] if isinstance(part.content, str) else part.content
        return [p for item in items if (p := _media_part(item, settings)) is not None]
    if isinstance(part, ToolReturnPart):
        return [_tool_result(part.tool_call_id, part.tool_name, part.content, settings)]
    assert isinstance(part, RetryPromptPart)
    if part.tool_name is None:
        return [{'type': 'text', 'content': part.model_response()}]
    return [_tool_result(part.tool_call_id, part.tool_name, part.model_response(), settings)]


def _role(part: ModelRequestPart, version: int) -> str:
    if isinstance(part, SystemPromptPart):
        return 'system'
    # From version 6, tool results travel in `tool` messages, the role the conventions pair them with.
    answers_a_tool = isinstance(part, ToolReturnPart) or (isinstance(part, RetryPromptPart) and part.tool_name)
    return 'tool' if version >= 6 and answers_a_tool else 'user'


def _tool_call_args(part: ToolCallPart | NativeToolCallPart) -> Any:
    try:
        return part.args_as_dict(raise_if_invalid=True)
    except ValueError:
        return part.args  # not a JSON object: record it as the model sent it


def _response_parts(response: ModelResponse, settings: InstrumentationSettings) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for part in response.parts:
        if isinstance(part, TextPart):
            parts.append({'type': 'text', 'content': part.content})
        elif isinstance(part, ThinkingPart):
            parts.append({'type': 'reasoning', 'content': part.content})
        elif isinstance(part, ToolCallPart | NativeToolCallPart):
            call = {'type': 'tool_call', 'id': part.tool_call_id, 'name': part.tool_name}
            parts.append({**call, 'arguments': _tool_call_args(part)})
        elif isinstance(part, NativeToolReturnPart):
            parts.append(_tool_result(part.tool_call_id, part.tool_name, part.content, settings))
        elif isinstance(part, FilePart) and (media := _media_part(part.content, settings)) is not None:
            parts.append(media)
    return parts


def input_messages(messages: Sequence[ModelMessage], settings: InstrumentationSettings) -> list[dict[str, Any]]:
    """The conversation sent to the model, as the `gen_ai.input.messages` list."""
    result: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ModelRequest):
            for role, group in groupby(message.parts, key=lambda p: _role(p, settings.version)):
                parts = [converted for part in group for converted in _request_part(part, settings)]
                result.append({'role': role, 'parts': parts})
        else:
            result.append(output_message(message, settings))
    return result


def output_message(response: ModelResponse, settings: InstrumentationSettings) -> dict[str, Any]:
    """A model response as one `assistant` message of `gen_ai.output.messages`."""
    message: dict[str, Any] = {'role': 'assistant', 'parts': _response_parts(response, settings)}
    if response.finish_reason is not None:
        message['finish_reason'] = response.finish_reason
    return message


def system_instructions(messages: Sequence[ModelMessage]) -> list[dict[str, Any]] | None:
    """The instructions sent with the latest request, as the `gen_ai.system_instructions` list."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            return [{'type': 'text', 'content': message.instructions}] if message.instructions else None
    return None
