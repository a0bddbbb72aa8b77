"""What `RunContext.enqueue` and `AgentRun.enqueue` accept, and the queued entries they produce."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from ._content import UserContent
from ._parts import ModelMessage, ModelRequest, ModelRequestPart, ModelResponse, UserPromptPart
from .exceptions import UserError

__all__ = ('EnqueueContent', 'PendingMessage', 'PendingMessagePriority')

PendingMessagePriority: TypeAlias = Literal['asap', 'when_idle']
"""When an enqueued message is delivered: `'asap'` or only `'when_idle'` (when the run would end)."""

EnqueueContent: TypeAlias = UserContent | ModelRequestPart | ModelRequest | ModelResponse
"""One item `enqueue` accepts: user content, a request part, or a complete message."""

_USER_CONTENT_KINDS = ('image-url', 'audio-url', 'video-url', 'document-url', 'binary')


def _is_user_content(item: object) -> bool:
    return isinstance(item, str) or getattr(item, 'kind', None) in _USER_CONTENT_KINDS


def build_messages(content: Sequence[EnqueueContent]) -> list[ModelMessage]:
    """Group enqueued items into messages.

    Adjacent user content becomes one `UserPromptPart`, part-style items one `ModelRequest`;
    complete messages stay as they are, in order.
    """
    messages: list[ModelMessage] = []
    parts: list[ModelRequestPart] = []
    user_items: list[UserContent] = []

    def flush_user() -> None:
        if user_items:
            only = user_items[0]
            # A lone string stays a string, as `Agent.run('...')` records it.
            parts.append(UserPromptPart(only if len(user_items) == 1 and isinstance(only, str) else list(user_items)))
            user_items.clear()

    def flush_parts() -> None:
        flush_user()
        if parts:
            messages.append(ModelRequest(parts=list(parts)))
            parts.clear()

    for item in content:
        if isinstance(item, ModelRequest | ModelResponse):
            flush_parts()
            messages.append(item)
        elif _is_user_content(item):
            user_items.append(item)  # pyright: ignore[reportArgumentType]
        else:
            flush_user()
            parts.append(item)  # pyright: ignore[reportArgumentType]
    flush_parts()
    return messages


@dataclass
class PendingMessage:
    """One `enqueue` call's messages, waiting in a run's queue to be injected into the conversation."""

    messages: list[ModelMessage]
    """The messages to inject, in order; `enqueue` makes sure the last one is a `ModelRequest`."""
    priority: PendingMessagePriority = 'asap'
    """When to deliver them."""

    @classmethod
    def from_content(cls, *content: EnqueueContent, priority: PendingMessagePriority = 'asap') -> PendingMessage | None:
        """The entry for `enqueue(*content)`, or `None` when there is nothing to send.

        Raises:
            UserError: if the messages do not end in a `ModelRequest` (the model needs a request to answer).
        """
        messages = build_messages(content)
        if not messages:
            return None
        if not isinstance(messages[-1], ModelRequest):
            raise UserError(
                'Enqueued content must end with a `ModelRequest` (user content or request parts that form one), '
                'so the agent has a request to respond to.'
            )
        return cls(messages=messages, priority=priority)
