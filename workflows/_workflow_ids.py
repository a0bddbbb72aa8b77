"""The workflow ids a client derives, so it can address a run without storing its id."""

from __future__ import annotations

__all__ = ('conversation_workflow_id',)


def conversation_workflow_id(agent: str, conversation_id: str) -> str:
    """The workflow id of a conversation, so a stateless front end can address it by conversation id alone."""
    return f'agent-{agent}-conversation-{conversation_id}'
