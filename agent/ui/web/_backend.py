"""`ChatBackend`: what the chat app needs from whatever runs the conversations.

The web app (`create_chat_app`) speaks HTTP and the UI protocol; a backend speaks the agent's own events
(`NativeEvent`) and messages, so one backend serves every protocol. Two backends implement this protocol: the
in-process `InProcessChatBackend` (histories in memory, turns run in the server's event loop) and the durable
one in `doors/chat/` (a conversation is a workflow, a turn is an update on it).

The contract every backend keeps:

- A conversation belongs to the owner who started it and to one agent. Any call naming a conversation that does
  not exist or that another owner started raises `ConversationNotFound` (`NotOwner` is a subclass, so a
  caller can never tell "not yours" from "no such conversation"); the app answers 404 to both.
- The history is the backend's. A turn carries only what is new: the user's message and/or the answers to the
  approvals the previous turn stopped on. Nothing else the client sends is trusted.
- A turn runs on its own once started. Closing the iterator returned by `stream_turn` or `resume` detaches the
  reader (e.g. the browser went away) and does not stop the turn; only `stop` does. This is what lets a page
  reload and `resume` the stream.
- A turn's events end with an `AgentRunResultEvent`. A turn that stops to wait for approvals ends the same way,
  with a result whose output is `DeferredToolRequests`; the conversation then waits (see `inbox`) until a turn
  answers every pending approval.
- `resume` replays the running turn's events from the turn's start, so a reader that lost some (or all) of them
  rebuilds the same message; `history` during a turn is the history as of the turn's start, new user message
  included, so history plus replay shows every message once.
- A backend that cannot serve a request now because what runs its conversations is not there (the durable backend:
  no worker serves its task queue) raises `BackendUnavailable` within a bounded time instead of waiting; its
  `admitted` says whether what the request sent (a message, a stop, approval answers) was taken anyway and will be
  acted on later, so nothing the person sent is lost without them being told. The app answers 503.
- `decisions` says who decided the conversation's approvals (and how far the ones needing several approvers got),
  as far as the backend knows: the durable backend from the run's decision records, the in-process backend not at
  all (it has no approval rules; the page then shows the answers without names).
- When what a turn's events showed so far no longer holds (a retried model request replaced the text), the
  iterator raises `StreamInterrupted`: the response ends without finishing, and the page reads the history and
  resumes, which replays the turn as it now is.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

from agent._content import UserContent
from agent._parts import ModelMessage
from agent.tools import DeferredToolResults
from agent.ui._event_stream import NativeEvent

__all__ = (
    'BackendUnavailable',
    'ChatBackend',
    'ChatBackendError',
    'ChatTurn',
    'ConversationDecisions',
    'ConversationNotFound',
    'ExternalEventNotFound',
    'ExternalEventRefused',
    'InvalidConversationId',
    'InvalidResumeToken',
    'NotOwner',
    'OpenApproval',
    'PendingApproval',
    'StreamInterrupted',
    'ToolCallDecision',
    'TurnRejected',
    'UnknownAgent',
    'WaitingConversation',
)


class ChatBackendError(Exception):
    """Base class of the errors a `ChatBackend` raises for a request it cannot serve."""


class ConversationNotFound(ChatBackendError, LookupError):
    """The conversation does not exist, or the caller does not own it (the app answers 404)."""

    def __init__(self, conversation_id: str) -> None:
        super().__init__(f'Conversation {conversation_id!r} not found.')
        self.conversation_id = conversation_id
        """The conversation asked for."""


class NotOwner(ConversationNotFound):
    """The conversation exists but another owner started it.

    A subclass of `ConversationNotFound` with the same message, so the answer (404) does not reveal that the
    conversation exists; a backend may raise either.
    """


class UnknownAgent(ChatBackendError, LookupError):
    """A turn named an agent the backend does not serve (the app answers 404)."""

    def __init__(self, agent: str) -> None:
        super().__init__(f'Unknown agent {agent!r}.')
        self.agent = agent
        """The agent asked for."""


class InvalidConversationId(ChatBackendError, ValueError):
    """The conversation id cannot name a conversation of this backend, e.g. it is too long (the app answers 400)."""


class BackendUnavailable(ChatBackendError):
    """What runs the conversations cannot take the request now (the app answers 503 with the message).

    Raised within a bounded time instead of waiting for it to come back. The message says what to do about it.
    """

    def __init__(self, message: str, *, admitted: bool = False) -> None:
        super().__init__(message)
        self.admitted = admitted
        """Whether what the request sent (a message, a stop, approval answers) was taken all the same and will be acted
        on once the backend can; `False`: it was not, and nothing of the request remains (send it again later)."""


class StreamInterrupted(ChatBackendError):
    """Raised by a turn's event iterator when the events it gave so far no longer hold; the turn goes on.

    The app ends the response without finishing it, so the page drops what it showed and resumes (`resume`
    replays the turn from its start).
    """


class TurnRejected(ChatBackendError):
    """The conversation cannot take this turn now (the app answers 409 with the message).

    For example: a turn is already running; the turn names another agent than the conversation's; approvals are
    pending and the turn does not answer all of them; the turn answers approvals that are not pending; the turn
    carries neither a message nor answers.
    """


class ExternalEventNotFound(ChatBackendError, LookupError):
    """No wait of the caller's has this resume token: none exists, it is another owner's, or its run is gone (the
    app answers 404, so a caller cannot tell another owner's wait from none)."""


class ExternalEventRefused(ChatBackendError):
    """The wait a resume token names cannot take this resolution (the app answers 409 with the message): it has
    ended (resolved, failed, timed out), or the answer does not fit it (e.g. names calls that are not pending)."""


class InvalidResumeToken(ExternalEventRefused, ValueError):
    """The resume token is malformed (the app answers 400 with what is wrong with it)."""


@dataclass(frozen=True, kw_only=True)
class ChatTurn:
    """One turn of a conversation: what the human adds to it."""

    conversation_id: str
    """The conversation (the AI SDK's chat id, AG-UI's thread id); a new id starts a new conversation."""
    owner: str
    """Who is asking (from the app's authentication); a new conversation belongs to them."""
    agent: str | None = None
    """The agent's name, one of `ChatBackend.agent_names()`.

    `None` means the conversation's agent, or the first of `agent_names()` for a new conversation (AG-UI requests,
    for one, name no agent). A name other than an existing conversation's agent is rejected (`TurnRejected`).
    """
    user_prompt: str | Sequence[UserContent] | None = None
    """The user's new message, or `None` when the turn only answers approvals."""
    deferred_tool_results: DeferredToolResults | None = None
    """The human's answers (approvals, denials with reasons) to the approvals the conversation waits for."""


@dataclass(frozen=True, kw_only=True)
class PendingApproval:
    """A tool call waiting for a human's approval."""

    tool_call_id: str
    """The call's id, which the answer in `DeferredToolResults.approvals` is keyed by."""
    tool_name: str
    """The tool's name."""
    args: dict[str, Any] = field(default_factory=dict[str, Any])
    """The call's arguments (decoded from JSON; `{'INVALID_JSON': raw}` when the model sent invalid JSON)."""


@dataclass(frozen=True, kw_only=True)
class WaitingConversation:
    """A conversation waiting for a human: its last turn stopped on approvals."""

    conversation_id: str
    """The conversation's id."""
    agent: str
    """The conversation's agent."""
    title: str
    """A short title: the start of the conversation's first user message."""
    approvals: tuple[PendingApproval, ...]
    """The tool calls waiting for approval, in the order the model made them."""
    updated_at: datetime
    """When the conversation last changed (timezone-aware, UTC)."""


@dataclass(frozen=True, kw_only=True)
class ToolCallDecision:
    """How a deferred tool call of a conversation was decided, and by whom."""

    tool_call_id: str
    """The call."""
    tool_name: str
    """Its tool."""
    decision: Literal['approve', 'deny', 'override', 'result']
    """Approved (`override`: with other arguments), denied, or an external call's result given."""
    by: tuple[str, ...] = ()
    """Who decided: every approver a call needed, the one who denied it; none when no one did (it expired)."""
    reason: str | None = None
    """Why, where there is one (a denial's message)."""


@dataclass(frozen=True, kw_only=True)
class OpenApproval:
    """An approval still waiting under a rule, with who approved it so far (one that needs several approvers)."""

    tool_call_id: str
    """The call."""
    tool_name: str
    """Its tool."""
    required: int
    """How many distinct approvers it needs."""
    approved_by: tuple[str, ...] = ()
    """Who approved it so far."""


@dataclass(frozen=True, kw_only=True)
class ConversationDecisions:
    """Who decided a conversation's deferred tool calls so far, and how far the open approvals are."""

    decisions: tuple[ToolCallDecision, ...] = ()
    """The decided calls, oldest first (a backend may keep only the latest)."""
    open_approvals: tuple[OpenApproval, ...] = ()
    """The approvals waiting under a rule."""


@runtime_checkable
class ChatBackend(Protocol):
    """Runs the conversations of a chat app: turns, live events, history and the approvals inbox.

    All methods are called from the app's event loop. See the module docstring for the contract.
    """

    def agent_names(self) -> Sequence[str]:
        """The names of the agents this backend serves, in the order to offer them (the first is the default)."""
        ...

    async def stream_turn(self, turn: ChatTurn) -> AsyncIterator[NativeEvent]:
        """Start a turn and return its events.

        Awaiting this checks and starts the turn, so its errors come before any event (the app can still answer
        with an error status); iterating the result streams the turn's events live, from the turn's start,
        ending with an `AgentRunResultEvent` (whose output is `DeferredToolRequests` when the turn stops to wait
        for approvals).

        Raises:
            ConversationNotFound: The conversation exists and the owner does not own it.
            UnknownAgent: The turn names an agent the backend does not serve.
            TurnRejected: The conversation cannot take this turn now.
            InvalidConversationId: The conversation id cannot name a conversation of this backend.
            BackendUnavailable: What runs the conversations cannot take the turn now.
        """
        ...

    async def resume(self, conversation_id: str, owner: str) -> AsyncIterator[NativeEvent] | None:
        """The running turn's events from the turn's start (then live), or `None` when no turn is running.

        Raises:
            ConversationNotFound: No such conversation of this owner.
            InvalidConversationId: The conversation id cannot name a conversation of this backend.
            BackendUnavailable: What runs the conversations cannot answer now.
        """
        ...

    async def stop(self, conversation_id: str, owner: str) -> bool:
        """Cancel the running turn; `True` if one was running.

        The history keeps the turn's user message and what the turn completed before it was cancelled.

        Raises:
            ConversationNotFound: No such conversation of this owner.
            InvalidConversationId: The conversation id cannot name a conversation of this backend.
            BackendUnavailable: What runs the conversations cannot answer now.
        """
        ...

    async def history(self, conversation_id: str, owner: str) -> list[ModelMessage]:
        """The conversation's messages (during a turn: as of the turn's start, its new user message included).

        Raises:
            ConversationNotFound: No such conversation of this owner.
            InvalidConversationId: The conversation id cannot name a conversation of this backend.
            BackendUnavailable: What runs the conversations cannot answer now.
        """
        ...

    async def inbox(self, owner: str) -> list[WaitingConversation]:
        """The owner's conversations waiting for a human (approvals pending, no turn running), newest first."""
        ...

    async def decisions(self, conversation_id: str, owner: str) -> ConversationDecisions:
        """Who decided the conversation's deferred tool calls, as far as the backend keeps it (none: empty).

        Raises:
            ConversationNotFound: No such conversation of this owner.
            InvalidConversationId: The conversation id cannot name a conversation of this backend.
            BackendUnavailable: What runs the conversations cannot answer now.
        """
        ...

    async def resolve_external_event(
        self, token: str, owner: str, *, results: Any = None, failure: str | None = None
    ) -> None:
        """End the wait for an external event (a `RequestInput`'s) that `token` names, crediting `owner`.

        With `failure`, the wait ends without an answer (the pending calls are denied or fail, the model is told the
        reason); otherwise with `results` (for `RequestInput`, the JSON form of `DeferredToolResults`).

        Raises:
            InvalidResumeToken: The token is malformed.
            ExternalEventNotFound: No wait of this owner has the token.
            ExternalEventRefused: The wait has ended, or `results` does not fit it.
            BackendUnavailable: What runs the waits cannot take the resolution now.
        """
        ...
