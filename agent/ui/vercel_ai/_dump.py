"""Agent messages as UI messages, the shape `useChat` keeps (for sending a stored chat to a page).

A request becomes a system message and/or a user message, and each model response one assistant message (as
Pydantic AI writes them; `merge_steps` joins a turn's responses into one message of steps, as a stream builds it).
Each tool call is one tool part carrying its result, error or denial; a call with no result yet is waiting for
the user: on AI SDK v6 it is shown as `approval-requested`, on v5 as `input-available`. A message's metadata holds
the application's `metadata` and, under the `pydantic_ai` key, its timestamp.
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

from ._utils import dump_message_metadata, dump_provider_metadata, tool_return_output
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

__all__ = ('MessageIdFunc', 'dump_ui_messages', 'merge_steps')

Role = Literal['system', 'user', 'assistant']
MessageIdFunc = Callable[[ModelMessage, Role, int], str]
"""Makes a UI message's id from the agent message, the UI role and the UI message's index."""


def default_message_id(message: ModelMessage, role: Role, index: int) -> str:
    """A stable id: the provider's response id or the run id with the index, else derived from the message's time."""
    if isinstance(message, ModelResponse) and message.provider_response_id:
        return f'{message.provider_response_id}-{index}'
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
    for message in messages:
        if isinstance(message, ModelRequest):
            system, user = _request_parts(message)
            # The metadata goes on the request's last UI message only, so loading applies it once.
            metadata = dump_message_metadata(message) or None
            if system:
                out.append(
                    UIMessage(
                        id=make_id(message, 'system', len(out)),
                        role='system',
                        metadata=None if user else metadata,
                        parts=system,
                    )
                )
            if user:
                out.append(UIMessage(id=make_id(message, 'user', len(out)), role='user', metadata=metadata, parts=user))
        elif parts := _response_parts(message, results, sdk_version):
            out.append(
                UIMessage(
                    id=make_id(message, 'assistant', len(out)),
                    role='assistant',
                    metadata=dump_message_metadata(message),
                    parts=parts,
                )
            )
    return out


def merge_steps(messages: Sequence[UIMessage]) -> list[UIMessage]:
    """Consecutive assistant messages joined into one of steps (`step-start` before each), as a stream builds it.

    The joined message keeps the first message's id and the last one's metadata (a stream's one
    `message-metadata` chunk describes the last response).
    """
    out: list[UIMessage] = []
    for message in messages:
        if message.role != 'assistant':
            out.append(message)
            continue
        steps: list[UIMessagePart] = [StepStartUIPart(), *message.parts]
        if out and out[-1].role == 'assistant':
            out[-1] = out[-1].model_copy(update={'parts': [*out[-1].parts, *steps], 'metadata': message.metadata})
        else:
            out.append(message.model_copy(update={'parts': steps}))
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
            if parts and isinstance(parts[-1], TextUIPart):
                parts[-1].text += part.content  # one text part, as the stream shows consecutive text
                continue
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
            meta = dump_provider_metadata(
                id=part.id, provider_name=part.provider_name, provider_details=part.provider_details
            )
            parts.append(
                FileUIPart(url=part.content.data_uri, media_type=part.content.media_type, provider_metadata=meta)
            )
        elif isinstance(part, NativeToolCallPart):
            parts.append(_native_tool_part(part, native_returns.get(part.tool_call_id), sdk_version))
        elif isinstance(part, ToolCallPart):
            parts.append(_tool_part(part, results.get(part.tool_call_id), sdk_version))
    return parts


def _native_tool_part(call: NativeToolCallPart, result: NativeToolReturnPart | None, sdk_version: int) -> UIMessagePart:
    if result is None:
        return _tool_part(call, None, sdk_version, provider_executed=True)
    # One tool part stands for the call and its result, so each one's provider fields travel under its own key.
    meta = dump_provider_metadata(
        call_meta=dump_provider_metadata(
            None, id=call.id, provider_name=call.provider_name, provider_details=call.provider_details
        ),
        return_meta=dump_provider_metadata(
            None, provider_name=result.provider_name, provider_details=result.provider_details
        ),
    )
    return _tool_part(call, result, sdk_version, provider_executed=True, call_provider_metadata=meta)


def _tool_part(
    call: ToolCallPart | NativeToolCallPart,
    result: ToolReturnPart | NativeToolReturnPart | RetryPromptPart | None,
    sdk_version: int,
    *,
    provider_executed: bool = False,
    call_provider_metadata: dict[str, Any] | None = None,
) -> UIMessagePart:
    common: dict[str, Any] = {
        'type': f'tool-{call.tool_name}',
        'tool_call_id': call.tool_call_id,
        'input': _input(call),
        'provider_executed': provider_executed,
        'call_provider_metadata': call_provider_metadata
        or dump_provider_metadata(id=call.id, provider_name=call.provider_name, provider_details=call.provider_details),
    }
    if isinstance(result, RetryPromptPart):
        return ToolOutputErrorPart(**common, error_text=result.model_response())
    if result is None:
        if sdk_version >= 6:
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
