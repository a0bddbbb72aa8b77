"""Serving an MCP server's sampling requests (`sampling/createMessage`) with one of the agent's models.

The request's messages become a conversation (its system prompt first), its limits become model settings, and
the model's text answer goes back as the assistant message. Images and audio in the request are passed on as
binary content; the tool-use variant of sampling is not advertised, so requests never carry tools.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

import mcp_types

from agent._content import BinaryContent, UserContent
from agent._parts import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    UserPromptPart,
)
from agent.settings import ModelSettings

if TYPE_CHECKING:
    from agent.models import Model

__all__ = ('answer_sampling', 'create_message')

_STOP_REASONS: dict[str, str] = {'stop': 'endTurn', 'length': 'maxTokens', 'tool_call': 'toolUse'}


_Block = mcp_types.SamplingContent | mcp_types.ToolUseContent | mcp_types.ToolResultContent


def _user_content(block: _Block) -> UserContent:
    if isinstance(block, mcp_types.TextContent):
        return block.text
    if isinstance(block, mcp_types.ImageContent | mcp_types.AudioContent):
        return BinaryContent(base64.b64decode(block.data), media_type=block.mime_type)
    # Tool-use blocks only appear when the client advertises sampling tools, which it does not.
    return block.model_dump_json(by_alias=True, exclude_none=True)


def _messages(params: mcp_types.CreateMessageRequestParams) -> list[ModelMessage]:
    messages: list[ModelMessage] = []
    pending_system: list[ModelRequestPart] = [SystemPromptPart(params.system_prompt)] if params.system_prompt else []
    for message in params.messages:
        blocks = message.content if isinstance(message.content, list) else [message.content]
        contents = [_user_content(block) for block in blocks]
        if message.role == 'user':
            only = contents[0] if len(contents) == 1 else None
            prompt = UserPromptPart(only if isinstance(only, str) else contents)
            messages.append(ModelRequest(parts=[*pending_system, prompt]))
            pending_system = []
        else:
            texts = [content if isinstance(content, str) else repr(content) for content in contents]
            messages.append(ModelResponse(parts=[TextPart(text) for text in texts]))
    if pending_system:
        messages.insert(0, ModelRequest(parts=pending_system))
    return messages


def _settings(params: mcp_types.CreateMessageRequestParams) -> ModelSettings:
    settings: ModelSettings = {'max_tokens': params.max_tokens}
    if params.temperature is not None:
        settings['temperature'] = params.temperature
    if params.stop_sequences:
        settings['stop_sequences'] = list(params.stop_sequences)
    return settings


async def create_message(model: Model, params: mcp_types.CreateMessageRequestParams) -> mcp_types.CreateMessageResult:
    """Answer a sampling request with `model`.

    Args:
        model: The model to ask.
        params: The server's sampling request.

    Returns:
        The assistant message for the server.
    """
    from agent.models import ModelRequestParameters

    response = await model.request(_messages(params), _settings(params), ModelRequestParameters())
    stop = _STOP_REASONS.get(response.finish_reason or 'stop', 'endTurn')
    return mcp_types.CreateMessageResult(
        role='assistant',
        content=mcp_types.TextContent(type='text', text=response.text or ''),
        model=response.model_name or model.model_name,
        stop_reason=stop,
    )


async def answer_sampling(
    model: Model | None, params: mcp_types.CreateMessageRequestParams
) -> mcp_types.CreateMessageResult | mcp_types.ErrorData:
    """Answer a sampling request with `model`, or with an error the server can report when there is none."""
    if model is None:
        return mcp_types.ErrorData(
            code=mcp_types.INVALID_REQUEST,
            message='Sampling is unavailable: this client has no model to sample with (no `sampling_model` is set '
            'and no agent run has used the server).',
        )
    try:
        return await create_message(model, params)
    except Exception as error:
        return mcp_types.ErrorData(code=mcp_types.INTERNAL_ERROR, message=f'Sampling failed: {error}')
