"""`InProcessChatBackend`: conversations kept in memory, turns run as tasks in the server's event loop.

A turn runs in its own task, not in the HTTP response that started it, so a closed browser tab does not cancel
it and a reload can `resume` it. The task appends every event to the turn's buffer; each reader (the response
that started the turn, any number of resumes) walks the buffer from the start and then waits for more. The
buffer lives as long as the turn: a finished turn's events are dropped and its messages become the history.

Everything is lost when the process exits; the durable backend in `doors.chat` is the one that is not.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agent._abstract_agent import AbstractAgent
from agent._content import UserContent
from agent._env import now_utc
from agent._external_events import fail_external_event, is_pending, resolve_external_event
from agent._parts import ModelMessage, ModelRequest, UserPromptPart
from agent.exceptions import UserError
from agent.run import AgentRunResultEvent
from agent.settings import ModelSettings
from agent.tools import DeferredToolRequests
from agent.ui._event_stream import NativeEvent

from ._backend import (
    ChatTurn,
    ConversationDecisions,
    ConversationNotFound,
    ExternalEventNotFound,
    ExternalEventRefused,
    NotOwner,
    PendingApproval,
    TurnRejected,
    UnknownAgent,
    WaitingConversation,
)

__all__ = ('InProcessChatBackend',)

_TITLE_LENGTH = 80


@dataclass(eq=False)
class _RunningTurn:
    """A turn's task and the events it produced so far."""

    start_history: list[ModelMessage]
    """The history as of the turn's start (its new user message included), what `history` shows meanwhile."""
    events: list[NativeEvent] = field(default_factory=list[NativeEvent])
    """Every event of the turn so far."""
    done: bool = False
    """The turn ended (finished, failed or was stopped): no more events come."""
    error: BaseException | None = None
    """Why the turn failed, re-raised to its readers after its events."""
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    """Set (and replaced) whenever an event arrives or the turn ends, to wake the readers."""
    task: asyncio.Task[None] | None = None
    """The task running the turn."""

    def notify(self) -> None:
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()

    async def read(self) -> AsyncIterator[NativeEvent]:
        """The turn's events from its start, then live until it ends."""
        index = 0
        while True:
            changed = self.changed
            while index < len(self.events):
                yield self.events[index]
                index += 1
            if self.done:
                if self.error is not None:
                    raise self.error
                return
            await changed.wait()


@dataclass(eq=False)
class _Conversation:
    id: str
    agent: str
    owner: str
    messages: list[ModelMessage] = field(default_factory=list[ModelMessage])
    pending: DeferredToolRequests | None = None
    title: str = ''
    updated_at: datetime = field(default_factory=now_utc)
    turn: _RunningTurn | None = None


class InProcessChatBackend:
    """A `ChatBackend` running agents in this process, with histories and pending approvals in memory.

    ```python
    from agent import Agent
    from agent.ui.web import InProcessChatBackend, create_chat_app

    app = create_chat_app(InProcessChatBackend({'assistant': Agent('test')}))
    ```

    Every run may end with `DeferredToolRequests` (added to the agent's output type), so tools that require
    approval pause the conversation instead of failing the run.
    """

    def __init__(
        self,
        agents: Mapping[str, AbstractAgent[Any, Any]],
        *,
        deps: Any = None,
        model_settings: ModelSettings | None = None,
        instructions: Any = None,
    ) -> None:
        """Serve `agents` by name.

        Args:
            agents: The agents, keyed by the name the page shows (the first is the default).
            deps: The deps of every run.
            model_settings: The model settings of every run.
            instructions: More instructions for every run.
        """
        if not agents:
            raise ValueError('InProcessChatBackend needs at least one agent.')
        self._agents = dict(agents)
        self._deps = deps
        self._model_settings = model_settings
        self._instructions = instructions
        self._conversations: dict[str, _Conversation] = {}

    def agent_names(self) -> Sequence[str]:
        """The agents' names, in the order given."""
        return list(self._agents)

    async def stream_turn(self, turn: ChatTurn) -> AsyncIterator[NativeEvent]:
        """Start a turn in a task and return its events (see `ChatBackend.stream_turn`).

        Raises:
            ConversationNotFound: The conversation belongs to another owner.
            UnknownAgent: No agent of that name.
            TurnRejected: A turn is running, the agent differs, or the approvals answered are not the pending ones.
        """
        conversation = self._conversations.get(turn.conversation_id)
        if conversation is not None and conversation.owner != turn.owner:
            raise NotOwner(turn.conversation_id)
        agent_name = turn.agent or (conversation.agent if conversation else next(iter(self._agents)))
        agent = self._agents.get(agent_name)
        if agent is None:
            raise UnknownAgent(agent_name)
        if conversation is None:
            conversation = _Conversation(id=turn.conversation_id, agent=agent_name, owner=turn.owner)
        _check_turn(conversation, turn, agent_name)
        if turn.conversation_id not in self._conversations:
            self._conversations[turn.conversation_id] = conversation
        if not conversation.title and turn.user_prompt is not None:
            conversation.title = _title(turn.user_prompt)

        start_history = list(conversation.messages)
        if turn.user_prompt is not None and turn.deferred_tool_results is None:
            start_history.append(ModelRequest(parts=[UserPromptPart(turn.user_prompt)]))
        running = _RunningTurn(start_history=start_history)
        running.task = asyncio.create_task(self._run(conversation, running, agent, turn))
        # A done callback, not a `finally` in `_run`: a task cancelled before its first step never runs its body.
        running.task.add_done_callback(lambda _: _finish(conversation, running))
        conversation.turn = running
        conversation.updated_at = now_utc()
        return running.read()

    async def _run(
        self, conversation: _Conversation, running: _RunningTurn, agent: AbstractAgent[Any, Any], turn: ChatTurn
    ) -> None:
        previous_pending = conversation.pending
        conversation.pending = None
        result: Any = None
        try:
            async with agent.run_stream_events(
                turn.user_prompt,
                output_type=[agent.output_type, DeferredToolRequests],
                message_history=conversation.messages,
                deferred_tool_results=turn.deferred_tool_results,
                conversation_id=conversation.id,
                deps=self._deps,
                model_settings=self._model_settings,
                instructions=self._instructions,
            ) as events:
                async for event in events:
                    running.events.append(event)
                    running.notify()
                    if isinstance(event, AgentRunResultEvent):
                        result = event.result  # pyright: ignore[reportUnknownMemberType,reportUnknownVariableType]
        except BaseException as e:
            # Stopped or failed: the history keeps what the turn started with, and approvals it did not get to
            # stay pending, so the conversation can go on.
            conversation.messages = running.start_history
            conversation.pending = previous_pending
            if not isinstance(e, asyncio.CancelledError):
                running.error = e
            if not isinstance(e, Exception):
                raise
        else:
            if result is not None:
                conversation.messages = result.all_messages()
                output = result.output
                if isinstance(output, DeferredToolRequests) and (output.approvals or output.calls):
                    conversation.pending = output

    def _owned(self, conversation_id: str, owner: str) -> _Conversation:
        conversation = self._conversations.get(conversation_id)
        if conversation is None:
            raise ConversationNotFound(conversation_id)
        if conversation.owner != owner:
            raise NotOwner(conversation_id)
        return conversation

    async def resume(self, conversation_id: str, owner: str) -> AsyncIterator[NativeEvent] | None:
        """The running turn's buffered events, then live; `None` when no turn runs."""
        conversation = self._owned(conversation_id, owner)
        return conversation.turn.read() if conversation.turn is not None else None

    async def stop(self, conversation_id: str, owner: str) -> bool:
        """Cancel the running turn and wait until it has ended; `True` if one was running."""
        conversation = self._owned(conversation_id, owner)
        running = conversation.turn
        if running is None or running.task is None:
            return False
        running.task.cancel()
        try:
            await running.task
        except asyncio.CancelledError:
            # The turn's cancellation, not ours; re-raise only if this task is itself being cancelled.
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
        return True

    async def history(self, conversation_id: str, owner: str) -> list[ModelMessage]:
        """The conversation's messages (as of the running turn's start, if one runs)."""
        conversation = self._owned(conversation_id, owner)
        if conversation.turn is not None:
            return list(conversation.turn.start_history)
        return list(conversation.messages)

    async def inbox(self, owner: str) -> list[WaitingConversation]:
        """The owner's conversations with pending approvals and no running turn, newest first."""
        waiting = [
            WaitingConversation(
                conversation_id=c.id,
                agent=c.agent,
                title=c.title,
                approvals=tuple(
                    PendingApproval(tool_call_id=call.tool_call_id, tool_name=call.tool_name, args=call.args_as_dict())
                    for call in c.pending.approvals
                ),
                updated_at=c.updated_at,
            )
            for c in self._conversations.values()
            if c.owner == owner and c.turn is None and c.pending is not None and c.pending.approvals
        ]
        waiting.sort(key=lambda w: w.updated_at, reverse=True)
        return waiting

    async def decisions(self, conversation_id: str, owner: str) -> ConversationDecisions:
        """None: in-process conversations have no approval rules and keep no decision records (the only one who can
        answer is the conversation's owner)."""
        self._owned(conversation_id, owner)
        return ConversationDecisions()

    async def resolve_external_event(
        self, token: str, owner: str, *, results: Any = None, failure: str | None = None
    ) -> None:
        """End the in-process wait `token` names: `resolve_external_event` crediting `owner`, or `fail_external_event`.

        An in-process token is a random string that only the wait's `ask` handed out: whoever holds it may resolve it.

        Raises:
            ExternalEventNotFound: No wait in this process has the token (or it has ended).
            ExternalEventRefused: `results` does not fit the wait.
        """
        if not is_pending(token):
            raise ExternalEventNotFound('No wait in this server has this token, or its wait has ended.')
        try:
            if failure is not None:
                fail_external_event(token, failure)
            else:
                resolve_external_event(token, results, caller=owner)
        except UserError as exc:
            raise ExternalEventRefused(exc.message) from exc


def _finish(conversation: _Conversation, running: _RunningTurn) -> None:
    """Mark the turn ended and wake its readers."""
    running.done = True
    running.notify()
    if conversation.turn is running:
        conversation.turn = None
    conversation.updated_at = now_utc()


def _check_turn(conversation: _Conversation, turn: ChatTurn, agent_name: str) -> None:
    """Raise `TurnRejected` unless the conversation can take the turn now."""
    if conversation.turn is not None:
        raise TurnRejected('A turn is already running in this conversation; stop it or wait for it to finish.')
    if conversation.agent != agent_name:
        raise TurnRejected(f'This conversation is with agent {conversation.agent!r}, not {agent_name!r}.')
    results = turn.deferred_tool_results
    pending = conversation.pending
    if results is None:
        if turn.user_prompt is None:
            raise TurnRejected('The turn has neither a message nor answers to pending approvals.')
        if pending is not None:
            raise TurnRejected('Tool calls are waiting for approval: answer them before sending a new message.')
        return
    if pending is None:
        raise TurnRejected('No tool calls are waiting for approval in this conversation.')
    expected = {call.tool_call_id for call in pending.approvals} | {call.tool_call_id for call in pending.calls}
    given = set(results.approvals) | set(results.calls)
    if given != expected:
        raise TurnRejected(
            f'The turn must answer exactly the pending tool calls {sorted(expected)}; it answers {sorted(given)}.'
        )


def _title(prompt: str | Sequence[UserContent]) -> str:
    """The start of the first user message's text, on one line."""
    text = prompt if isinstance(prompt, str) else ' '.join(item for item in prompt if isinstance(item, str))
    text = ' '.join(text.split())
    return text if len(text) <= _TITLE_LENGTH else text[: _TITLE_LENGTH - 1] + '…'
