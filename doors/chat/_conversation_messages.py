"""A conversation's messages as its workflow holds them now, read with the `messages` query a page at a time.

The workflow answers from memory: its completed turns, then the running turn's messages so far. The one thing a
query cannot give is what the run has not loaded yet: in its first moments, a run that an earlier one continued
by reference is still reading that conversation back with activities, and the reply names the earlier run
instead (`ConversationPage.history_from`). Those messages are read here from that run's event history, where the
run's own activities read them from, so the caller never waits for the load to finish.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from temporalio.client import Client

from activities._handoff import read_conversation
from agent._parts import ModelMessage
from workflows._agent_workflow import AgentWorkflow
from workflows._types import ConversationPage, MessagePage, RunningTurn

__all__ = ('ConversationNow', 'read_messages')

_PAGE_LIMIT = 1000  # messages asked for per query; the workflow also keeps each reply under its byte budget


@dataclass
class ConversationNow:
    """What the `messages` query says of a conversation."""

    messages: list[ModelMessage] = field(default_factory=list[ModelMessage])
    """Every message: completed turns, then the running turn's so far."""
    turn: RunningTurn | None = None
    """The running turn (its `start` indexes `messages`), if any."""


async def read_messages(client: Client, workflow_id: str) -> ConversationNow:
    """The conversation of the workflow `workflow_id` (its latest run), all pages of it.

    A turn may add messages between two pages; the pages are read up to the total of the last one.

    Raises:
        RPCError: The workflow does not exist, or no worker answered the query.
    """
    handle = client.get_workflow_handle(workflow_id)
    messages: list[ModelMessage] = []
    while True:
        page: ConversationPage = await handle.query(
            AgentWorkflow.messages, MessagePage(offset=len(messages), limit=_PAGE_LIMIT)
        )
        messages.extend(page.messages)
        if not page.messages or len(messages) >= page.total:
            break
    turn = page.turn
    if page.history_from is not None:
        handoff = page.history_from
        earlier = await read_conversation(client, handoff.workflow_id, handoff.run_id)
        messages = [*earlier, *messages]
        if turn is not None:
            turn = replace(turn, start=turn.start + len(earlier))
    return ConversationNow(messages, turn)
