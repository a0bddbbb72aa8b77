"""An AG-UI request (`RunAgentInput`) as a `ChatTurn`, and the stream that answers a reconnect.

The thread id is the conversation id. A client sends the whole thread on every run, but the backend keeps the
history, so only what is new is taken: the last message when it is a user message (sanitized in `'server'` mode,
as `useChat`'s is) and the `resume` entries that answer the approval interrupts the last run ended with
(`agent.ui.ag_ui._interrupts`). The request's `state`, `tools` and `context` are not taken: a backend's agents have
their own tools and deps, and state snapshots are out of scope (the durable backend keeps no frontend state).

AG-UI defines no way to rejoin a run over HTTP, so a reconnect is a run request with nothing new in it (the
thread's messages end with no user message, and no `resume`). The answer is one run: `RUN_STARTED`, a
`MESSAGES_SNAPSHOT` with the conversation as the server has it (up to the running turn's user message, when a turn
runs or just ended), the turn's events replayed from its start, then `RUN_FINISHED`. The snapshot replaces what the
client held, so what a dropped stream showed is not duplicated by the replay. With no turn to replay the run
carries just the snapshot.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

from ag_ui.core import BaseEvent, Message, MessagesSnapshotEvent, RunAgentInput, UserMessage

from agent._parts import ModelMessage, ModelRequest, UserPromptPart
from agent.ui.ag_ui import AGUIAdapter, AGUIEventStream
from agent.ui.ag_ui._interrupts import resume_to_deferred_tool_results

from ._backend import ChatTurn
from ._vercel_turn import sanitized_prompt

__all__ = ('AGUIReconnectStream', 'ag_ui_turn', 'up_to_last_prompt')


def ag_ui_turn(run_input: RunAgentInput, owner: str) -> ChatTurn | None:
    """The turn an AG-UI request asks for, or `None` when it brings nothing new (a reconnect).

    Raises:
        BadChatRequest: The new user message is empty once sanitized.
    """
    last = run_input.messages[-1] if run_input.messages else None
    prompt = sanitized_prompt(AGUIAdapter.load_messages([last])) if isinstance(last, UserMessage) else None
    results = resume_to_deferred_tool_results(run_input.resume or [])
    if prompt is None and results is None:
        return None
    return ChatTurn(conversation_id=run_input.thread_id, owner=owner, user_prompt=prompt, deferred_tool_results=results)


def up_to_last_prompt(history: Sequence[ModelMessage]) -> list[ModelMessage]:
    """The history up to and including its last user message: what comes after it, a replay shows."""
    for index in range(len(history) - 1, -1, -1):
        message = history[index]
        if isinstance(message, ModelRequest) and any(isinstance(p, UserPromptPart) for p in message.parts):
            return list(history[: index + 1])
    return list(history)


@dataclass
class AGUIReconnectStream(AGUIEventStream[None, object]):
    """An AG-UI stream that gives the client the conversation (`MESSAGES_SNAPSHOT`) right after `RUN_STARTED`."""

    snapshot: list[Message] = field(default_factory=list[Message])
    """The conversation's messages as AG-UI messages."""

    async def before_stream(self) -> AsyncIterator[BaseEvent]:
        """Open the run, then replace the client's messages with the server's."""
        async for event in super().before_stream():
            yield event
        yield MessagesSnapshotEvent(messages=self.snapshot)
