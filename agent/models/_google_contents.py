"""Conversations as Gemini `contents`, and candidate parts read back as response parts.

Thought signatures: Gemini signs its reasoning and attaches the signature (`thoughtSignature`) to a part
of its answer (often the first function call); a later request must carry it on the same part, or newer
models refuse the history. A signature is kept as the `signature` of the thinking part just before the part
that carried it (an empty thinking part when the model showed no thoughts), and goes back on the part that
follows that thinking part. Thought summaries themselves are not sent back: Gemini does not need them.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Any

from agent._content import BinaryContent, FileUrl, MultiModalContent, UploadedFile, prompt_items
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
from agent._tool_parts import tool_return_content_object
from agent.usage import RequestUsage

from ._wire import as_dict, as_int, as_list

__all__ = (
    'candidate_part',
    'candidate_parts',
    'gemini_contents',
    'gemini_finish_reason',
    'gemini_usage',
    'grounding_parts',
)

_FINISH_REASONS: dict[str, FinishReason] = {
    'STOP': 'stop',
    'MAX_TOKENS': 'length',
    'SAFETY': 'content_filter',
    'RECITATION': 'content_filter',
    'BLOCKLIST': 'content_filter',
    'PROHIBITED_CONTENT': 'content_filter',
    'SPII': 'content_filter',
    'IMAGE_SAFETY': 'content_filter',
    'MALFORMED_FUNCTION_CALL': 'error',
}


def gemini_contents(messages: list[ModelMessage], *, provider_name: str) -> tuple[list[str], list[dict[str, Any]]]:
    """The system prompts and the `contents` (consecutive turns of one role merged)."""
    system: list[str] = []
    contents: list[dict[str, Any]] = []
    # Gemini ids its function calls only sometimes; ids it did not assign are not sent, so results match by name.
    gemini_ids = {
        part.tool_call_id
        for message in messages
        if isinstance(message, ModelResponse)
        for part in message.parts
        if isinstance(part, ToolCallPart) and part.id is not None and part.id == part.tool_call_id
    }

    def add(role: str, parts: list[dict[str, Any]]) -> None:
        if not parts:
            return
        if contents and contents[-1]['role'] == role:
            contents[-1]['parts'].extend(parts)
        else:
            contents.append({'role': role, 'parts': parts})

    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, SystemPromptPart):
                    system.append(part.content)
                else:
                    add('user', _request_parts(part, gemini_ids))
        else:
            add('model', _response_parts(message, provider_name))
    return system, contents


def _request_parts(
    part: UserPromptPart | ToolReturnPart | RetryPromptPart, gemini_ids: set[str]
) -> list[dict[str, Any]]:
    if isinstance(part, UserPromptPart):
        return [_user_part(item) for item in prompt_items(part.content)]
    if part.tool_name is None:
        return [{'text': part.model_response()}]
    result = (
        tool_return_content_object(part.content)
        if isinstance(part, ToolReturnPart)
        else {'error': part.model_response()}
    )
    response: dict[str, Any] = {'name': part.tool_name, 'response': result}
    if part.tool_call_id in gemini_ids:
        response = {'id': part.tool_call_id, **response}
    return [{'functionResponse': response}]


def _user_part(item: str | MultiModalContent) -> dict[str, Any]:
    if isinstance(item, str):
        return {'text': item}
    if isinstance(item, BinaryContent):
        return {'inlineData': {'mimeType': item.media_type, 'data': base64.b64encode(item.data).decode('ascii')}}
    if isinstance(item, UploadedFile):
        # Gemini refers to uploaded files (Files API or `gs://`) by URI.
        return {'fileData': {'mimeType': item.media_type, 'fileUri': item.file_id}}
    file_url: FileUrl = item
    return {'fileData': {'mimeType': file_url.media_type, 'fileUri': file_url.url}}


def _response_parts(response: ModelResponse, provider_name: str) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    signature: str | None = None
    for part in response.parts:
        wire: dict[str, Any] | None = None
        if isinstance(part, ThinkingPart):
            if part.provider_name == provider_name and part.signature:
                signature = part.signature
            continue
        if isinstance(part, TextPart):
            wire = {'text': part.content} if part.content else None
        elif isinstance(part, ToolCallPart):
            call: dict[str, Any] = {'name': part.tool_name, 'args': part.args_as_dict()}
            if part.id is not None and part.id == part.tool_call_id:
                call = {'id': part.id, **call}
            wire = {'functionCall': call}
        elif isinstance(part, NativeToolCallPart) and part.provider_name == provider_name:
            wire = {'executableCode': part.args_as_dict()} if part.tool_name == 'code_execution' else None
        elif isinstance(part, NativeToolReturnPart) and part.provider_name == provider_name:
            wire = {'codeExecutionResult': part.content} if part.tool_name == 'code_execution' else None
        elif isinstance(part, FilePart) and part.provider_name == provider_name:
            data = base64.b64encode(part.content.data).decode('ascii')
            wire = {'inlineData': {'mimeType': part.content.media_type, 'data': data}}
        if wire is not None:
            if signature is not None:
                wire['thoughtSignature'] = signature
                signature = None
            parts.append(wire)
    if signature is not None and parts and 'thoughtSignature' not in parts[-1]:
        # Streamed answers can end with the signature of the part before it.
        parts[-1]['thoughtSignature'] = signature
    return parts


def candidate_parts(raw_parts: list[Any], *, provider_name: str) -> list[ModelResponsePart]:
    """The response parts of a candidate's content parts, with signatures on thinking parts."""
    parts: list[ModelResponsePart] = []
    last_call: NativeToolCallPart | None = None
    for raw in raw_parts:
        part = as_dict(raw)
        signature = part.get('thoughtSignature')
        if part.get('thought'):
            parts.append(ThinkingPart(str(part.get('text', '')), signature=signature, provider_name=provider_name))
            continue
        if isinstance(signature, str) and signature:
            previous = parts[-1] if parts else None
            if isinstance(previous, ThinkingPart) and previous.signature is None:
                previous.signature = signature
            else:
                parts.append(ThinkingPart('', signature=signature, provider_name=provider_name))
        converted = candidate_part(part, last_call, provider_name)
        if isinstance(converted, NativeToolCallPart):
            last_call = converted
        if converted is not None:
            parts.append(converted)
    return parts


def candidate_part(
    part: dict[str, Any], last_call: NativeToolCallPart | None, provider_name: str
) -> ModelResponsePart | None:
    """The response part for one content part other than a thought (`last_call` is the code execution a result
    answers)."""
    if isinstance(part.get('text'), str):
        return TextPart(part['text']) if part['text'] else None
    if 'functionCall' in part:
        call = as_dict(part['functionCall'])
        tool_call = ToolCallPart(str(call.get('name')), as_dict(call.get('args')))
        if call.get('id'):
            tool_call.tool_call_id = tool_call.id = str(call['id'])
        return tool_call
    if 'executableCode' in part:
        return NativeToolCallPart('code_execution', as_dict(part['executableCode']), provider_name=provider_name)
    if 'codeExecutionResult' in part:
        call_id = last_call.tool_call_id if last_call is not None else ''
        content = as_dict(part['codeExecutionResult'])
        return NativeToolReturnPart('code_execution', content, call_id, provider_name=provider_name)
    if 'inlineData' in part:
        inline = as_dict(part['inlineData'])
        try:
            data = base64.b64decode(str(inline.get('data', '')))
        except (binascii.Error, ValueError):
            return None
        media_type = str(inline.get('mimeType', 'application/octet-stream'))
        return FilePart(BinaryContent(data, media_type=media_type), provider_name=provider_name)
    return None


def grounding_parts(candidate: dict[str, Any], *, provider_name: str) -> list[ModelResponsePart]:
    """Google Search and URL context results, which Gemini reports beside the content, as native tool parts."""
    parts: list[ModelResponsePart] = []
    grounding = as_dict(candidate.get('groundingMetadata'))
    if grounding.get('webSearchQueries'):
        call = NativeToolCallPart('web_search', {'queries': grounding['webSearchQueries']}, provider_name=provider_name)
        sources = as_list(grounding.get('groundingChunks'))
        result = NativeToolReturnPart('web_search', sources, call.tool_call_id, provider_name=provider_name)
        parts += [call, result]
    url_context = as_dict(candidate.get('urlContextMetadata'))
    if url_context.get('urlMetadata'):
        urls = [as_dict(u).get('retrievedUrl') for u in as_list(url_context['urlMetadata'])]
        call = NativeToolCallPart('web_fetch', {'urls': urls}, provider_name=provider_name)
        result = NativeToolReturnPart(
            'web_fetch', url_context['urlMetadata'], call.tool_call_id, provider_name=provider_name
        )
        parts += [call, result]
    return parts


def gemini_usage(metadata: dict[str, Any]) -> RequestUsage:
    """Token counts from `usageMetadata`; output counts thoughts too, input counts tool-use prompts."""
    thoughts = as_int(metadata.get('thoughtsTokenCount'))
    tool_prompt = as_int(metadata.get('toolUsePromptTokenCount'))
    return RequestUsage(
        input_tokens=as_int(metadata.get('promptTokenCount')) + tool_prompt,
        output_tokens=as_int(metadata.get('candidatesTokenCount')) + thoughts,
        cache_read_tokens=as_int(metadata.get('cachedContentTokenCount')),
        reasoning_tokens=thoughts,
        details={'tool_use_prompt_tokens': tool_prompt} if tool_prompt else {},
    )


def gemini_finish_reason(raw: Any, parts: Sequence[ModelResponsePart]) -> FinishReason | None:
    """The finish reason for a candidate's `finishReason`."""
    reason = _FINISH_REASONS.get(raw) if isinstance(raw, str) else None
    if reason == 'stop' and any(isinstance(p, ToolCallPart) for p in parts):
        return 'tool_call'
    return reason
