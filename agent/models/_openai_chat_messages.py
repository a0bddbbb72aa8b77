"""Conversations in the Chat Completions wire format, and responses read back from it.

Reasoning: OpenAI does not return its reasoning through Chat Completions, but compatible servers do, in a
`reasoning_content` (DeepSeek, vLLM) or `reasoning` (OpenRouter, Ollama) field. The thinking part keeps the
field's name as its `id`, and is sent back in that same field to the same provider: servers that need it
(DeepSeek, after tool calls) get it back, servers that do not ignore it, and OpenAI never sees a field it
does not know.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from agent._content import (
    AudioUrl,
    BinaryContent,
    DocumentUrl,
    ImageUrl,
    MultiModalContent,
    UploadedFile,
    UserContent,
    VideoUrl,
    prompt_items,
)
from agent._parts import (
    FinishReason,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponsePart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent._tool_parts import tool_return_content_str
from agent.exceptions import UserError
from agent.usage import RequestUsage

from ._wire import as_dict, as_int, as_list

__all__ = ('REASONING_FIELDS', 'chat_finish_reason', 'chat_messages', 'chat_response_parts', 'chat_usage')

REASONING_FIELDS = ('reasoning_content', 'reasoning')
"""The message fields in which compatible servers return reasoning."""

_FINISH_REASONS: dict[str, FinishReason] = {
    'stop': 'stop',
    'length': 'length',
    'tool_calls': 'tool_call',
    'function_call': 'tool_call',
    'content_filter': 'content_filter',
}


def chat_messages(
    messages: list[ModelMessage], instructions: str | None, *, provider_name: str
) -> list[dict[str, Any]]:
    """The `messages` array of a request: instructions first, then the conversation in order."""
    result: list[dict[str, Any]] = [{'role': 'system', 'content': instructions}] if instructions else []
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                result.append(_request_part(part))
        else:
            assistant = _assistant_message(message, provider_name)
            if assistant is not None:
                result.append(assistant)
    return result


def _request_part(part: SystemPromptPart | UserPromptPart | ToolReturnPart | RetryPromptPart) -> dict[str, Any]:
    if isinstance(part, SystemPromptPart):
        return {'role': 'system', 'content': part.content}
    if isinstance(part, UserPromptPart):
        return {'role': 'user', 'content': user_content(part.content)}
    if isinstance(part, ToolReturnPart):
        return {'role': 'tool', 'tool_call_id': part.tool_call_id, 'content': tool_return_content_str(part.content)}
    if part.tool_name is None:
        return {'role': 'user', 'content': part.model_response()}
    return {'role': 'tool', 'tool_call_id': part.tool_call_id, 'content': part.model_response()}


def _assistant_message(response: ModelResponse, provider_name: str) -> dict[str, Any] | None:
    texts: list[str] = []
    tool_calls: list[dict[str, Any]] = []
    reasoning: dict[str, list[str]] = {}
    for part in response.parts:
        if isinstance(part, TextPart):
            texts.append(part.content)
        elif isinstance(part, ToolCallPart):
            tool_calls.append(
                {
                    'id': part.tool_call_id,
                    'type': 'function',
                    'function': {'name': part.tool_name, 'arguments': part.args_as_json_str()},
                }
            )
        elif (
            isinstance(part, ThinkingPart)
            and part.id in REASONING_FIELDS
            and part.provider_name == provider_name
            and part.content
        ):
            reasoning.setdefault(part.id, []).append(part.content)
        # Native tool parts and files are the provider's own business: Chat Completions has no way to send them.
    if not texts and not tool_calls:
        return None
    message: dict[str, Any] = {'role': 'assistant', 'content': '\n\n'.join(texts) if texts else None}
    if tool_calls:
        message['tool_calls'] = tool_calls
    for field, contents in reasoning.items():
        message[field] = '\n\n'.join(contents)
    return message


def user_content(content: str | Sequence[UserContent]) -> str | list[dict[str, Any]]:
    """A user message's `content`: the text itself, or a list of content parts.

    Raises:
        UserError: for content Chat Completions cannot take (URLs other than images, video).
    """
    if isinstance(content, str):
        return content
    return [_content_part(item) for item in prompt_items(content)]


def _content_part(item: str | MultiModalContent) -> dict[str, Any]:
    if isinstance(item, str):
        return {'type': 'text', 'text': item}
    if isinstance(item, ImageUrl):
        image: dict[str, Any] = {'url': item.url}
        detail = (item.vendor_metadata or {}).get('detail')
        if detail:
            image['detail'] = detail
        return {'type': 'image_url', 'image_url': image}
    if isinstance(item, BinaryContent):
        if item.is_image:
            return {'type': 'image_url', 'image_url': {'url': item.data_uri}}
        if item.is_audio and item.media_type in ('audio/wav', 'audio/x-wav', 'audio/mpeg', 'audio/mp3'):
            audio_format = 'wav' if 'wav' in item.media_type else 'mp3'
            data = base64.b64encode(item.data).decode('ascii')
            return {'type': 'input_audio', 'input_audio': {'data': data, 'format': audio_format}}
        if item.is_document:
            filename = item.identifier or 'document'
            return {'type': 'file', 'file': {'filename': filename, 'file_data': item.data_uri}}
        raise UserError(f'Chat Completions cannot take {item.media_type} content; send images, audio or documents.')
    if isinstance(item, UploadedFile):
        return {'type': 'file', 'file': {'file_id': item.file_id}}
    kind = {AudioUrl: 'audio', DocumentUrl: 'document', VideoUrl: 'video'}.get(type(item), 'file')
    raise UserError(
        f'Chat Completions takes {kind} content as data, not by URL: download {item.url} and send it as '
        f'BinaryContent (or use the Responses API, which takes document URLs).'
    )


def chat_response_parts(message: dict[str, Any], *, provider_name: str) -> list[ModelResponsePart]:
    """The parts of a response's `message`: reasoning, text, then tool calls."""
    parts: list[ModelResponsePart] = []
    for field in REASONING_FIELDS:
        reasoning = message.get(field)
        if isinstance(reasoning, str) and reasoning:
            parts.append(ThinkingPart(reasoning, id=field, provider_name=provider_name))
    content = message.get('content')
    if isinstance(content, str) and content:
        parts.append(TextPart(content))
    for raw in as_list(message.get('tool_calls')):
        call = as_dict(raw)
        function = as_dict(call.get('function'))
        part = ToolCallPart(str(function.get('name', '')), function.get('arguments'))
        if call.get('id'):
            part.tool_call_id = str(call['id'])
        parts.append(part)
    return parts


def chat_usage(usage: dict[str, Any]) -> RequestUsage:
    """Token counts from a Chat Completions `usage` object."""
    prompt_details = as_dict(usage.get('prompt_tokens_details'))
    completion_details = as_dict(usage.get('completion_tokens_details'))
    details: dict[str, int] = {}
    for source, skip in ((prompt_details, 'cached_tokens'), (completion_details, 'reasoning_tokens')):
        for key, value in source.items():
            # Audio counts have their own fields (and the same key on both sides, so they would collide here).
            if key not in (skip, 'audio_tokens') and as_int(value):
                details[key] = as_int(value)
    return RequestUsage(
        input_tokens=as_int(usage.get('prompt_tokens')),
        output_tokens=as_int(usage.get('completion_tokens')),
        cache_read_tokens=as_int(prompt_details.get('cached_tokens')),
        reasoning_tokens=as_int(completion_details.get('reasoning_tokens')),
        details=details,
        input_audio_tokens=as_int(prompt_details.get('audio_tokens')),
        output_audio_tokens=as_int(completion_details.get('audio_tokens')),
    )


def chat_finish_reason(raw: Any) -> FinishReason | None:
    """The finish reason for a choice's `finish_reason`."""
    return _FINISH_REASONS.get(raw) if isinstance(raw, str) else None
