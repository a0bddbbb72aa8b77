"""Conversations in the Anthropic Messages format, and content blocks read back as parts.

Thinking blocks carry a signature that Anthropic checks when they come back, so a thinking part keeps it
(`signature`) and is only ever sent back to Anthropic; a redacted thinking block is kept as a thinking part
with `id='redacted_thinking'` and its encrypted data as the signature. Server-run tools (web search, web
fetch, code execution, MCP) come back as native tool call/return parts named after the server tool, and
go back as the blocks they came from.
"""

from __future__ import annotations

import base64
from typing import Any

from agent._content import BinaryContent, DocumentUrl, ImageUrl, MultiModalContent, prompt_items
from agent._parts import (
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

from ._wire import as_dict, as_int

__all__ = (
    'REDACTED_THINKING',
    'anthropic_finish_reason',
    'anthropic_messages',
    'anthropic_usage',
    'block_part',
    'native_call_part',
)

REDACTED_THINKING = 'redacted_thinking'
"""The `id` of a thinking part holding a redacted thinking block."""

_FINISH_REASONS: dict[str, FinishReason] = {
    'end_turn': 'stop',
    'stop_sequence': 'stop',
    'pause_turn': 'stop',
    'max_tokens': 'length',
    'model_context_window_exceeded': 'length',
    'tool_use': 'tool_call',
    'refusal': 'content_filter',
}
_MCP_PREFIX = 'mcp_server:'


def anthropic_messages(messages: list[ModelMessage]) -> tuple[list[str], list[dict[str, Any]]]:
    """The system prompts and the `messages` array (consecutive turns of one role merged, as the API requires)."""
    system: list[str] = []
    result: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if result and result[-1]['role'] == role:
            result[-1]['content'].extend(blocks)
        else:
            result.append({'role': role, 'content': blocks})

    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, SystemPromptPart):
                    system.append(part.content)
                else:
                    add('user', _request_blocks(part))
        else:
            add('assistant', _response_blocks(message))
    return system, result


def _request_blocks(part: UserPromptPart | ToolReturnPart | RetryPromptPart) -> list[dict[str, Any]]:
    if isinstance(part, UserPromptPart):
        return [_user_block(item) for item in prompt_items(part.content)]
    if isinstance(part, ToolReturnPart):
        return [
            {'type': 'tool_result', 'tool_use_id': part.tool_call_id, 'content': tool_return_content_str(part.content)}
        ]
    if part.tool_name is None:
        return [{'type': 'text', 'text': part.model_response()}]
    return [
        {'type': 'tool_result', 'tool_use_id': part.tool_call_id, 'content': part.model_response(), 'is_error': True}
    ]


def _response_blocks(response: ModelResponse) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in response.parts:
        if isinstance(part, TextPart):
            if part.content:
                blocks.append({'type': 'text', 'text': part.content})
        elif isinstance(part, ToolCallPart):
            blocks.append(
                {'type': 'tool_use', 'id': part.tool_call_id, 'name': part.tool_name, 'input': part.args_as_dict()}
            )
        elif isinstance(part, ThinkingPart):
            if part.provider_name != 'anthropic' or not part.signature:
                continue  # unsigned or foreign reasoning cannot be verified by Anthropic
            if part.id == REDACTED_THINKING:
                blocks.append({'type': 'redacted_thinking', 'data': part.signature})
            else:
                blocks.append({'type': 'thinking', 'thinking': part.content, 'signature': part.signature})
        elif isinstance(part, NativeToolCallPart) and part.provider_name == 'anthropic':
            blocks.append(_native_call_block(part))
        elif isinstance(part, NativeToolReturnPart) and part.provider_name == 'anthropic':
            blocks.append(_native_result_block(part))
    return blocks


def _native_call_block(part: NativeToolCallPart) -> dict[str, Any]:
    args = part.args_as_dict()
    if part.tool_name.startswith(_MCP_PREFIX):
        return {
            'type': 'mcp_tool_use',
            'id': part.tool_call_id,
            'name': args.get('name'),
            'server_name': part.tool_name.removeprefix(_MCP_PREFIX),
            'input': args.get('input', {}),
        }
    return {'type': 'server_tool_use', 'id': part.tool_call_id, 'name': part.tool_name, 'input': args}


def _native_result_block(part: NativeToolReturnPart) -> dict[str, Any]:
    if part.tool_name.startswith(_MCP_PREFIX):
        outcome = as_dict(part.content)
        return {
            'type': 'mcp_tool_result',
            'tool_use_id': part.tool_call_id,
            'is_error': bool(outcome.get('is_error')),
            'content': outcome.get('content', []),
        }
    return {'type': f'{part.tool_name}_tool_result', 'tool_use_id': part.tool_call_id, 'content': part.content}


def _user_block(item: str | MultiModalContent) -> dict[str, Any]:
    if isinstance(item, str):
        return {'type': 'text', 'text': item}
    if isinstance(item, ImageUrl):
        return {'type': 'image', 'source': {'type': 'url', 'url': item.url}}
    if isinstance(item, DocumentUrl):
        return {'type': 'document', 'source': {'type': 'url', 'url': item.url}}
    if isinstance(item, BinaryContent):
        data = base64.b64encode(item.data).decode('ascii')
        if item.is_image:
            return {'type': 'image', 'source': {'type': 'base64', 'media_type': item.media_type, 'data': data}}
        if item.media_type == 'application/pdf':
            return {'type': 'document', 'source': {'type': 'base64', 'media_type': item.media_type, 'data': data}}
        if item.media_type.startswith('text/'):
            text = item.data.decode(errors='replace')
            return {'type': 'document', 'source': {'type': 'text', 'media_type': 'text/plain', 'data': text}}
    raise UserError(f'Anthropic cannot take {type(item).__name__} content of this type; send text, images or PDFs.')


def block_part(block: dict[str, Any], call_names: dict[str, str]) -> ModelResponsePart | None:
    """The part for a complete content block (`call_names` maps native call ids to their part names)."""
    kind = block.get('type')
    if kind == 'text':
        return TextPart(str(block.get('text', '')))
    if kind == 'thinking':
        return ThinkingPart(str(block.get('thinking', '')), signature=block.get('signature'), provider_name='anthropic')
    if kind == REDACTED_THINKING:
        return ThinkingPart('', id=REDACTED_THINKING, signature=block.get('data'), provider_name='anthropic')
    if kind == 'tool_use':
        return ToolCallPart(str(block.get('name')), as_dict(block.get('input')), str(block.get('id')))
    if kind in ('server_tool_use', 'mcp_tool_use'):
        part = native_call_part(block, block.get('input'))
        call_names[part.tool_call_id] = part.tool_name
        return part
    if isinstance(kind, str) and kind.endswith('_tool_result'):
        call_id = str(block.get('tool_use_id'))
        if kind == 'mcp_tool_result':
            content: Any = {'content': block.get('content'), 'is_error': bool(block.get('is_error'))}
            name = call_names.get(call_id, _MCP_PREFIX)
        else:
            content, name = block.get('content'), kind.removesuffix('_tool_result')
        return NativeToolReturnPart(name, content, call_id, provider_name='anthropic')
    return None


def native_call_part(block: dict[str, Any], args: Any) -> NativeToolCallPart:
    """The native tool call of a `server_tool_use` or `mcp_tool_use` block, with its (parsed) input."""
    call_id = str(block.get('id'))
    if block.get('type') == 'mcp_tool_use':
        name = f'{_MCP_PREFIX}{block.get("server_name", "")}'
        return NativeToolCallPart(
            name, {'name': block.get('name'), 'input': args or {}}, call_id, provider_name='anthropic'
        )
    return NativeToolCallPart(str(block.get('name')), as_dict(args), call_id, provider_name='anthropic')


def anthropic_usage(usage: dict[str, Any]) -> RequestUsage:
    """Token counts from a `usage` object; input counts cache reads and writes too."""
    cache_read = as_int(usage.get('cache_read_input_tokens'))
    cache_write = as_int(usage.get('cache_creation_input_tokens'))
    details = {key: as_int(value) for key, value in as_dict(usage.get('server_tool_use')).items() if as_int(value)}
    return RequestUsage(
        input_tokens=as_int(usage.get('input_tokens')) + cache_read + cache_write,
        output_tokens=as_int(usage.get('output_tokens')),
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        details=details,
    )


def anthropic_finish_reason(raw: Any) -> FinishReason | None:
    """The finish reason for a `stop_reason`."""
    return _FINISH_REASONS.get(raw) if isinstance(raw, str) else None
