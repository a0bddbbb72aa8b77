"""Conversations as Responses API input items, and output items read back as parts.

Reasoning items come back as thinking parts with the item id as `id` and the `encrypted_content` as
`signature`, and go back to OpenAI as reasoning items: a reasoning model continuing a tool loop needs its
earlier reasoning. Output items that follow a reasoning item must keep their ids for the API to accept
it, so text parts and tool calls keep their item ids too.

Provider-run tool items (web search, code interpreter, image generation, MCP) become a native tool call
part and a native tool return part sharing the item id; they are sent back as the item they came from.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Any

from agent._content import (
    BinaryContent,
    DocumentUrl,
    ImageUrl,
    MultiModalContent,
    UploadedFile,
    UserContent,
    prompt_items,
)
from agent._parts import (
    FilePart,
    FinishReason,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponsePart,
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
from agent._tool_parts import tool_return_content_str
from agent.exceptions import UserError
from agent.usage import RequestUsage

from ._wire import as_dict, as_int, as_list, drop_none

__all__ = (
    'native_item_parts',
    'responses_finish_reason',
    'responses_input',
    'responses_output_parts',
    'responses_usage',
)

# Item type -> (native tool name, fields that are the call's arguments, fields that are its result).
_NATIVE_ITEMS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    'web_search_call': ('web_search', ('action',), ('status',)),
    'code_interpreter_call': ('code_execution', ('code', 'container_id'), ('status', 'outputs')),
    'image_generation_call': ('image_generation', ('revised_prompt',), ('status',)),
    'mcp_call': ('mcp_server', ('name', 'arguments'), ('output', 'error')),
    'mcp_list_tools': ('mcp_server', (), ('tools', 'error')),
}
_ITEM_TYPES = {'web_search': 'web_search_call', 'code_execution': 'code_interpreter_call'}


def responses_input(messages: list[ModelMessage], *, provider_name: str) -> list[dict[str, Any]]:
    """The `input` items for a conversation."""
    items: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ModelRequest):
            items.extend(_request_item(part) for part in message.parts)
        else:
            items.extend(_response_items(message, provider_name))
    return items


def _request_item(part: SystemPromptPart | UserPromptPart | ToolReturnPart | RetryPromptPart) -> dict[str, Any]:
    if isinstance(part, SystemPromptPart):
        return {'role': 'system', 'content': part.content}
    if isinstance(part, UserPromptPart):
        return {'role': 'user', 'content': _user_content(part.content)}
    if isinstance(part, ToolReturnPart):
        return {
            'type': 'function_call_output',
            'call_id': part.tool_call_id,
            'output': tool_return_content_str(part.content),
        }
    if part.tool_name is None:
        return {'role': 'user', 'content': part.model_response()}
    return {'type': 'function_call_output', 'call_id': part.tool_call_id, 'output': part.model_response()}


def _response_items(response: ModelResponse, provider_name: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    results = {p.tool_call_id: p for p in response.parts if isinstance(p, NativeToolReturnPart)}
    for part in response.parts:
        if isinstance(part, TextPart):
            items.append(_message_item(part))
        elif isinstance(part, ToolCallPart):
            call = {'type': 'function_call', 'call_id': part.tool_call_id, 'name': part.tool_name}
            call['arguments'] = part.args_as_json_str()
            if part.id and part.id.startswith('fc_'):
                call['id'] = part.id
            items.append(call)
        elif isinstance(part, ThinkingPart):
            if part.provider_name == provider_name and part.id and part.id.startswith('rs_'):
                summary = [{'type': 'summary_text', 'text': part.content}] if part.content else []
                items.append(
                    drop_none(
                        {'type': 'reasoning', 'id': part.id, 'summary': summary, 'encrypted_content': part.signature}
                    )
                )
        elif isinstance(part, NativeToolCallPart) and part.provider_name == provider_name:
            item = _native_item(part, results.get(part.tool_call_id))
            if item is not None:
                items.append(item)
    return items


def _message_item(part: TextPart) -> dict[str, Any]:
    if not (part.id and part.id.startswith('msg_')):
        return {'role': 'assistant', 'content': part.content}
    content: list[dict[str, Any]] = [{'type': 'output_text', 'text': part.content, 'annotations': []}]
    return {'type': 'message', 'role': 'assistant', 'id': part.id, 'content': content, 'status': 'completed'}


def _native_item(call: NativeToolCallPart, result: NativeToolReturnPart | None) -> dict[str, Any] | None:
    args = call.args_as_dict()
    outcome = as_dict(result.content) if result is not None else {}
    if call.tool_name.startswith('mcp_server:'):
        label = call.tool_name.removeprefix('mcp_server:')
        if args.get('action') == 'list_tools':
            return {'type': 'mcp_list_tools', 'id': call.tool_call_id, 'server_label': label, **outcome}
        return {'type': 'mcp_call', 'id': call.tool_call_id, 'server_label': label, **args, **outcome}
    item_type = _ITEM_TYPES.get(call.tool_name)
    if item_type is None:
        # A generated image would be sent back whole; the model does not need it to continue.
        return None
    return {'type': item_type, 'id': call.tool_call_id, **args, 'status': outcome.get('status', 'completed'), **outcome}


def _user_content(content: str | Sequence[UserContent]) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    return [_content_item(item) for item in prompt_items(content)]


def _content_item(item: str | MultiModalContent) -> dict[str, Any]:
    if isinstance(item, str):
        return {'type': 'input_text', 'text': item}
    if isinstance(item, ImageUrl):
        detail = (item.vendor_metadata or {}).get('detail', 'auto')
        return {'type': 'input_image', 'image_url': item.url, 'detail': detail}
    if isinstance(item, DocumentUrl):
        return {'type': 'input_file', 'file_url': item.url}
    if isinstance(item, UploadedFile):
        if (item.media_type or '').startswith('image/'):
            return {'type': 'input_image', 'file_id': item.file_id, 'detail': 'auto'}
        return {'type': 'input_file', 'file_id': item.file_id}
    if isinstance(item, BinaryContent):
        if item.is_image:
            return {'type': 'input_image', 'image_url': item.data_uri, 'detail': 'auto'}
        if item.is_document:
            return {'type': 'input_file', 'filename': item.identifier or 'document', 'file_data': item.data_uri}
    raise UserError(f'The Responses API cannot take {type(item).__name__} content; send text, images or documents.')


def responses_output_parts(output: list[Any], *, provider_name: str) -> list[ModelResponsePart]:
    """The parts of a response's `output` items, in order."""
    parts: list[ModelResponsePart] = []
    for raw in output:
        item = as_dict(raw)
        item_type, item_id = item.get('type'), item.get('id')
        if item_type == 'reasoning':
            parts.append(reasoning_part(item, provider_name=provider_name))
        elif item_type == 'message':
            for content in [as_dict(c) for c in as_list(item.get('content'))]:
                text = content.get('text') if content.get('type') == 'output_text' else content.get('refusal')
                if isinstance(text, str):
                    parts.append(TextPart(text, id=item_id))
        elif item_type == 'function_call':
            parts.append(function_call_part(item))
        else:
            parts.extend(native_item_parts(item, provider_name=provider_name))
    return parts


def reasoning_part(item: dict[str, Any], *, provider_name: str) -> ThinkingPart:
    """The thinking part of a reasoning item: its summaries (or reasoning text) and encrypted content."""
    texts = [as_dict(s).get('text') for s in [*as_list(item.get('summary')), *as_list(item.get('content'))]]
    content = '\n\n'.join(text for text in texts if isinstance(text, str))
    return ThinkingPart(
        content, id=item.get('id'), signature=item.get('encrypted_content'), provider_name=provider_name
    )


def function_call_part(item: dict[str, Any]) -> ToolCallPart:
    """The tool call of a `function_call` item."""
    part = ToolCallPart(str(item.get('name', '')), item.get('arguments') or None, id=item.get('id'))
    if item.get('call_id'):
        part.tool_call_id = str(item['call_id'])
    return part


def native_item_parts(item: dict[str, Any], *, provider_name: str) -> list[ModelResponsePart]:
    """A provider-run tool item as call and return parts (plus the image, for image generation)."""
    spec = _NATIVE_ITEMS.get(str(item.get('type')))
    if spec is None or not item.get('id'):
        return []
    tool_name, arg_fields, result_fields = spec
    item_id = str(item['id'])
    args = {key: item[key] for key in arg_fields if item.get(key) is not None}
    if tool_name == 'mcp_server':
        tool_name = f'mcp_server:{item.get("server_label", "")}'
        if item.get('type') == 'mcp_list_tools':
            args = {'action': 'list_tools'}
    content = {key: item[key] for key in result_fields if item.get(key) is not None}
    parts: list[ModelResponsePart] = [
        NativeToolCallPart(tool_name, args, item_id, provider_name=provider_name),
        NativeToolReturnPart(tool_name, content, item_id, provider_name=provider_name),
    ]
    image = item.get('result') if item.get('type') == 'image_generation_call' else None
    if isinstance(image, str) and image:
        try:
            data = base64.b64decode(image)
        except (binascii.Error, ValueError):
            data = b''
        if data:
            media_type = f'image/{item.get("output_format") or "png"}'
            parts.append(FilePart(BinaryContent(data, media_type=media_type), id=item_id, provider_name=provider_name))
    return parts


def responses_usage(usage: dict[str, Any]) -> RequestUsage:
    """Token counts from a Responses API `usage` object."""
    return RequestUsage(
        input_tokens=as_int(usage.get('input_tokens')),
        output_tokens=as_int(usage.get('output_tokens')),
        cache_read_tokens=as_int(as_dict(usage.get('input_tokens_details')).get('cached_tokens')),
        reasoning_tokens=as_int(as_dict(usage.get('output_tokens_details')).get('reasoning_tokens')),
    )


def responses_finish_reason(response: dict[str, Any], parts: Sequence[ModelResponsePart]) -> FinishReason | None:
    """Why the response ended, from its `status` and `incomplete_details`."""
    status = response.get('status')
    if status == 'completed':
        return 'tool_call' if any(isinstance(p, ToolCallPart) for p in parts) else 'stop'
    if status == 'incomplete':
        reason = as_dict(response.get('incomplete_details')).get('reason')
        return 'content_filter' if reason == 'content_filter' else 'length'
    if status == 'failed':
        return 'error'
    return None
