"""Agent messages as UI messages, the shape `useChat` keeps (for sending a stored chat to a page).

The output mirrors what the stream builds: a model response that follows only tool results continues the
previous assistant message as a new step (`step-start`), and each tool call is one tool part carrying its result,
error or denial. A call with no result yet is waiting for the user: on AI SDK v6 it is shown as
`approval-requested`, on v5 as `input-available`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from agent._content import AudioUrl, BinaryContent, DocumentUrl, ImageUrl, TextContent, VideoUrl
from agent._env import name_based_uuid
from agent._parts import (
    FilePart,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    UserPromptPart,
)
from agent._tool_parts import NativeToolCallPart, NativeToolReturnPart, ToolCallPart, ToolReturnPart

from ._utils import dump_provider_metadata, tool_return_output
from .request_types import (
    FileUIPart,
    ReasoningUIPart,
    StepStartUIPart,
    TextUIPart,
    ToolApprovalRequested,
    ToolApprovalRequestedPart,
    ToolApprovalResponded,
    ToolInputAvailablePart,
    ToolOutputAvailablePart,
    ToolOutputDeniedPart,
    ToolOutputErrorPart,
    UIMessage,
    UIMessagePart,
)

__all__ = ('MessageIdFunc', 'dump_ui_messages')

Role = Literal['system', 'user', 'assistant']
MessageIdFunc = Callable[[ModelMessage, Role, int], str]
"""Makes a UI message's id from the agent message, the UI role and the UI message's index."""


def default_message_id(message: ModelMessage, role: Role, index: int) -> str:
    """A stable id: from the run id when the message has one, otherwise derived from the message's time."""
    if message.run_id:
        return f'{message.run_id}-{index}'
    stamp = message.timestamp.isoformat() if message.timestamp else ''
    return name_based_uuid(f'{stamp}-{message.kind}-{role}-{index}')


def dump_ui_messages(
    messages: Sequence[ModelMessage], *, generate_message_id: MessageIdFunc | None = None, sdk_version: int = 6
) -> list[UIMessage]:
    """The UI messages for an agent history (see the module docstring)."""
    make_id = generate_message_id or default_message_id
    results: dict[str, ToolReturnPart | RetryPromptPart] = {}
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, ToolReturnPart) or (isinstance(part, RetryPromptPart) and part.tool_name):
                    results[part.tool_call_id] = part

    out: list[UIMessage] = []
    continues_assistant = False
    for message in messages:
        if isinstance(message, ModelRequest):
            system, user = _request_parts(message)
            if system:
                out.append(UIMessage(id=make_id(message, 'system', len(out)), role='system', parts=system))
            if user:
                out.append(UIMessage(id=make_id(message, 'user', len(out)), role='user', parts=user))
            # A request of tool results only keeps the assistant's turn going.
            continues_assistant = not system and not user and bool(out) and out[-1].role == 'assistant'
            continue
        parts: list[UIMessagePart] = [StepStartUIPart(), *_response_parts(message, results, sdk_version)]
        if continues_assistant:
            out[-1].parts.extend(parts)
        else:
            out.append(UIMessage(id=make_id(message, 'assistant', len(out)), role='assistant', parts=parts))
        continues_assistant = True
    return out


def _request_parts(message: ModelRequest) -> tuple[list[UIMessagePart], list[UIMessagePart]]:
    system: list[UIMessagePart] = []
    user: list[UIMessagePart] = []
    for part in message.parts:
        if isinstance(part, SystemPromptPart):
            system.append(TextUIPart(text=part.content, state='done'))
        elif isinstance(part, UserPromptPart):
            items = [part.content] if isinstance(part.content, str) else part.content
            for item in items:
                if (ui_part := _user_item(item)) is not None:
                    user.append(ui_part)
        elif isinstance(part, RetryPromptPart) and not part.tool_name:
            # Output validation feedback is a message the model received from the user's side.
            user.append(TextUIPart(text=part.model_response(), state='done'))
    return system, user


def _user_item(item: object) -> UIMessagePart | None:
    if isinstance(item, str):
        return TextUIPart(text=item, state='done')
    if isinstance(item, TextContent):
        return TextUIPart(text=item.content, state='done')
    if isinstance(item, BinaryContent):
        return FileUIPart(url=item.data_uri, media_type=item.media_type)
    if isinstance(item, ImageUrl | AudioUrl | VideoUrl | DocumentUrl):
        return FileUIPart(url=item.url, media_type=item.media_type or 'application/octet-stream')
    return None  # cache points and provider uploads have no UI form


def _response_parts(
    message: ModelResponse, results: dict[str, ToolReturnPart | RetryPromptPart], sdk_version: int
) -> list[UIMessagePart]:
    native_returns = {part.tool_call_id: part for part in message.parts if isinstance(part, NativeToolReturnPart)}
    parts: list[UIMessagePart] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            meta = dump_provider_metadata(
                id=part.id, provider_name=part.provider_name, provider_details=part.provider_details
            )
            parts.append(TextUIPart(text=part.content, state='done', provider_metadata=meta))
        elif isinstance(part, ThinkingPart):
            meta = dump_provider_metadata(
                id=part.id,
                signature=part.signature,
                provider_name=part.provider_name,
                provider_details=part.provider_details,
            )
            parts.append(ReasoningUIPart(text=part.content, state='done', provider_metadata=meta))
        elif isinstance(part, FilePart):
            parts.append(FileUIPart(url=part.content.data_uri, media_type=part.content.media_type))
        elif isinstance(part, NativeToolCallPart):
            parts.append(_tool_part(part, native_returns.get(part.tool_call_id), sdk_version, provider_executed=True))
        elif isinstance(part, ToolCallPart):
            parts.append(_tool_part(part, results.get(part.tool_call_id), sdk_version, provider_executed=None))
    return parts


def _tool_part(
    call: ToolCallPart | NativeToolCallPart,
    result: ToolReturnPart | NativeToolReturnPart | RetryPromptPart | None,
    sdk_version: int,
    *,
    provider_executed: bool | None,
) -> UIMessagePart:
    common: dict[str, Any] = {
        'type': f'tool-{call.tool_name}',
        'tool_call_id': call.tool_call_id,
        'input': _input(call),
        'provider_executed': provider_executed,
        'call_provider_metadata': dump_provider_metadata(
            id=call.id, provider_name=call.provider_name, provider_details=call.provider_details
        ),
    }
    if isinstance(result, RetryPromptPart):
        return ToolOutputErrorPart(**common, error_text=result.model_response())
    if result is None:
        if sdk_version >= 6 and provider_executed is None:
            return ToolApprovalRequestedPart(**common, approval=ToolApprovalRequested(id=call.tool_call_id))
        return ToolInputAvailablePart(**common)
    if result.outcome == 'denied':
        denial = ToolApprovalResponded(id=call.tool_call_id, approved=False, reason=result.model_response_str())
        return ToolOutputDeniedPart(**common, approval=denial)
    if result.outcome == 'failed':
        return ToolOutputErrorPart(**common, error_text=result.model_response_str())
    return ToolOutputAvailablePart(**common, output=tool_return_output(result))


def _input(call: ToolCallPart | NativeToolCallPart) -> object:
    try:
        return call.args_as_dict(raise_if_invalid=True)
    except ValueError:
        return call.args
