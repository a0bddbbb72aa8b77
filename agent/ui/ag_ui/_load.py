"""AG-UI messages to the agent's messages (`AGUIAdapter.load_messages`).

User, system and developer messages and tool results become request parts; assistant and reasoning messages
(and the adapter's own activity messages) become response parts, and consecutive parts of one kind share a
message. Activity messages of any other type are UI progress, not conversation, and are left out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from ag_ui.core import (
    ActivityMessage,
    AssistantMessage,
    DeveloperMessage,
    Message,
    ReasoningMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)

from agent._tool_parts import revive_content
from agent.messages import (
    BinaryContent,
    CompactionPart,
    FilePart,
    ModelMessage,
    NativeToolCallPart,
    NativeToolReturnPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.ui._messages_builder import MessagesBuilder

from ._content import (
    COMPACTION_ACTIVITY_TYPE,
    FILE_ACTIVITY_TYPE,
    FILE_ACTIVITY_TYPES,
    parse_native_tool_call_id,
    parts_to_user_content,
)

__all__ = ('MessageLoadError', 'load_messages')


class MessageLoadError(ValueError):
    """An AG-UI message that cannot become part of the agent's history."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(f'messages[{index}]: {message}')
        self.index = index
        """The position of the offending message in the list."""
        self.reason = message
        """What is wrong with it."""


def load_messages(messages: Sequence[Message], *, preserve_file_data: bool = False) -> list[ModelMessage]:
    """The agent's messages for a list of AG-UI messages (file activities are loaded only with
    `preserve_file_data`: a client must not hand the model files it claims the model made).

    Raises:
        MessageLoadError: a tool message answers a call no earlier assistant message made, or a part's inline
            data is not valid base64.
    """
    builder = MessagesBuilder()
    tool_names: dict[str, str] = {}
    for index, message in enumerate(messages):
        try:
            is_file = isinstance(message, ActivityMessage) and message.activity_type in FILE_ACTIVITY_TYPES
            if is_file and not preserve_file_data:
                continue
            _load_message(message, builder, tool_names)
        except MessageLoadError:
            raise
        except ValueError as e:
            raise MessageLoadError(index, str(e)) from e
    return builder.messages


def _load_message(message: Message, builder: MessagesBuilder, tool_names: dict[str, str]) -> None:
    match message:
        case UserMessage():
            _load_user_message(message, builder)
        case SystemMessage(content=text) | DeveloperMessage(content=text):
            builder.add(SystemPromptPart(text))
        case AssistantMessage():
            if message.content:
                builder.add(TextPart(message.content))
            for call in message.tool_calls or []:
                tool_names[call.id] = call.function.name
                args = call.function.arguments or None
                if (native := parse_native_tool_call_id(call.id)) is not None:
                    provider_name, call_id = native
                    builder.add(NativeToolCallPart(call.function.name, args, call_id, provider_name=provider_name))
                else:
                    builder.add(ToolCallPart(call.function.name, args, call.id))
        case ToolMessage():
            tool_name = tool_names.get(message.tool_call_id)
            if tool_name is None:
                raise ValueError(
                    f'the tool message answers {message.tool_call_id!r}, a tool call no earlier assistant message made'
                )
            _load_tool_message(message, builder, tool_name)
        case ReasoningMessage():
            builder.add(_thinking_part(message))
        case ActivityMessage():
            part = _activity_part(message)
            if part is not None:
                builder.add(part)


def _load_user_message(message: UserMessage, builder: MessagesBuilder) -> None:
    if isinstance(message.content, str):
        builder.add(UserPromptPart(message.content))
        return
    content = parts_to_user_content(message.content)
    if len(content) == 1 and isinstance(content[0], str):
        builder.add(UserPromptPart(content[0]))
    elif content:
        builder.add(UserPromptPart(content))


def _load_tool_message(message: ToolMessage, builder: MessagesBuilder, tool_name: str) -> None:
    content: Any
    if isinstance(message.content, str):
        content = _maybe_json(message.content)
    else:
        content = parts_to_user_content(message.content)
    outcome: Literal['success', 'failed'] = 'success'
    if message.error is not None:
        outcome = 'failed'
        if content in ('', []):
            content = message.error
    if (native := parse_native_tool_call_id(message.tool_call_id)) is not None:
        provider_name, call_id = native
        builder.add(NativeToolReturnPart(tool_name, content, call_id, outcome=outcome, provider_name=provider_name))
    else:
        builder.add(ToolReturnPart(tool_name, content, message.tool_call_id, outcome=outcome))


def _maybe_json(text: str) -> Any:
    """A tool result's text, or the object or list it encodes (the dumping side writes structured results as JSON)."""
    if not text.startswith(('{', '[')):
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return revive_content(value) if isinstance(value, dict | list) else text


def _thinking_part(message: ReasoningMessage) -> ThinkingPart:
    fields: dict[str, Any] = {}
    if message.encrypted_value:
        try:
            decoded = json.loads(message.encrypted_value)
        except ValueError:
            decoded = None
        # Another producer's opaque reasoning blob is kept where a provider expects one: as the signature.
        fields = decoded if isinstance(decoded, dict) else {'signature': message.encrypted_value}  # pyright: ignore[reportUnknownVariableType]
    provider_details = fields.get('provider_details')
    return ThinkingPart(
        message.content,
        id=_str_or_none(fields.get('id')),
        signature=_str_or_none(fields.get('signature')),
        provider_name=_str_or_none(fields.get('provider_name')),
        provider_details=provider_details if isinstance(provider_details, dict) else None,  # pyright: ignore[reportUnknownArgumentType]
    )


def _activity_part(message: ActivityMessage) -> FilePart | CompactionPart | None:
    content = message.content
    if message.activity_type in FILE_ACTIVITY_TYPES:
        url = content.get('url')
        if not isinstance(url, str):
            raise ValueError(f'an {FILE_ACTIVITY_TYPE!r} activity needs a data URI in `url`')
        return FilePart(BinaryContent.from_data_uri(url), provider_name=_str_or_none(content.get('provider_name')))
    if message.activity_type == COMPACTION_ACTIVITY_TYPE:
        details = content.get('provider_details')
        return CompactionPart(
            _str_or_none(content.get('content')),
            id=_str_or_none(content.get('id')),
            provider_name=_str_or_none(content.get('provider_name')),
            provider_details=details if isinstance(details, dict) else None,  # pyright: ignore[reportUnknownArgumentType]
        )
    return None


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
