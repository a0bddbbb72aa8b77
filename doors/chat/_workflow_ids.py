"""A chat conversation's workflow id: `chat-<conversation id>`, checked before Temporal sees it.

Temporal refuses a workflow id longer than its `limit.maxIDLength` (1000 by default, counted in UTF-8 bytes), and
an update-with-start that carries one fails as a whole. The chat server checks the id first, so a request with
an id that could never name a conversation is answered 400 saying the limit, whichever door it came through.
"""

from __future__ import annotations

from agent.ui.web import InvalidConversationId

__all__ = (
    'CHAT_WORKFLOW_PREFIX',
    'MAX_WORKFLOW_ID_BYTES',
    'chat_workflow_id',
    'checked_workflow_id',
    'conversation_id_of',
)

CHAT_WORKFLOW_PREFIX = 'chat-'
"""The start of every chat conversation's workflow id."""

MAX_WORKFLOW_ID_BYTES = 1000
"""The longest workflow id, in UTF-8 bytes, that a Temporal server takes by default (its `limit.maxIDLength`)."""


def chat_workflow_id(conversation_id: str) -> str:
    """The workflow id of a chat conversation."""
    return f'{CHAT_WORKFLOW_PREFIX}{conversation_id}'


def checked_workflow_id(conversation_id: str) -> str:
    """The workflow id of a chat conversation, checked before anything is sent to Temporal.

    Raises:
        InvalidConversationId: The workflow id would be longer than Temporal takes, or the id is not Unicode text.
    """
    workflow_id = chat_workflow_id(conversation_id)
    try:
        size = len(workflow_id.encode())
    except UnicodeEncodeError:
        raise InvalidConversationId('The conversation id is not Unicode text (it has lone surrogates).') from None
    if size > MAX_WORKFLOW_ID_BYTES:
        prefix = len(CHAT_WORKFLOW_PREFIX)
        raise InvalidConversationId(
            f'The conversation id is too long: {size - prefix} bytes (UTF-8), and at most '
            f'{MAX_WORKFLOW_ID_BYTES - prefix} fit (Temporal takes workflow ids of up to {MAX_WORKFLOW_ID_BYTES} '
            f"bytes, and a conversation's is {CHAT_WORKFLOW_PREFIX!r} followed by its id). Use a shorter id."
        )
    return workflow_id


def conversation_id_of(workflow_id: str) -> str:
    """The conversation id of a chat conversation's workflow id."""
    return workflow_id[len(CHAT_WORKFLOW_PREFIX) :]
