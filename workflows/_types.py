"""The workflow's wire contract: one JSON object in, one out (new fields only optional, with defaults)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Literal

from activities._types import DeferredNotice
from agent._agent_graph import RunCheckpoint
from agent._content import UserContent
from agent._deferred import DeferredToolRequests, DeferredToolResults
from agent._parts import ModelMessage
from agent.usage import RunUsage, UsageLimits

from ._approval_policy import ApprovalPolicy
from ._decisions import DecisionRecord, PendingApproval

__all__ = (
    'CONVERSATION_MOVING',
    'NOT_OWNER',
    'TURN_CANCELLED',
    'WAIT_NOT_REACHED',
    'AgentRunInput',
    'AgentRunOutput',
    'Caller',
    'CancelTurn',
    'CancelTurnResult',
    'ConversationMessage',
    'ConversationPage',
    'DecisionRecord',
    'DeferredNotice',
    'ExternalEventResolution',
    'HistoryHandoff',
    'MessagePage',
    'PendingApproval',
    'PendingExternalEvent',
    'Rejection',
    'RunStatus',
    'RunningTurn',
    'WaitForTurn',
    'WaitForTurnResult',
)

TURN_CANCELLED = 'TurnCancelled'
"""The `ApplicationError` type a `send_message` update fails with when `cancel_turn` cancelled its turn."""

NOT_OWNER = 'NotOwner'
"""The `ApplicationError` type of an update rejected because it names an owner other than the run's."""

WAIT_NOT_REACHED = 'WaitNotReached'
"""The `ApplicationError` type of a `resolve_external_event` refused because the run has not reached the wait yet
(a worker is replaying it after a crash): nothing was recorded; send it again a moment later (`AgentClient` does)."""

CONVERSATION_MOVING = 'ConversationMoving'
"""The `ApplicationError` type of a message refused while the conversation hands over to its next run.

Nothing was recorded: send the message again (`AgentClient.send_message` does, after a moment); it goes to the next
run. Only messages sent while an earlier turn was still running can meet it.
"""


@dataclass
class AgentRunInput:
    """Input of `AgentWorkflow`: which registered agent to run, and the run's arguments."""

    optional_fields_omitted: ClassVar[bool] = True
    """Written without the fields left at their defaults (every field but `agent` is optional)."""

    agent: str
    """The registered name of the agent."""
    prompt: str | list[UserContent] | None = None
    """The user prompt."""
    message_history: list[ModelMessage] | None = None
    """Earlier messages of the conversation."""
    deps: Any = None
    """The run's deps as data, validated against the agent's `deps_type`."""
    model: str | None = None
    """A model to use instead of the agent's own, as `'<provider>:<model>'`."""
    model_settings: dict[str, Any] | None = None
    """Run-level model settings."""
    usage_limits: UsageLimits | None = None
    """Limits on requests, tool calls and tokens."""
    metadata: dict[str, Any] | None = None
    """Run metadata."""
    conversation_id: str | None = None
    """The conversation this run belongs to."""
    deferred_tool_results: DeferredToolResults | None = None
    """Results for deferred tool calls at the end of `message_history`."""
    approval_policy: ApprovalPolicy | None = None
    """How this run waits for deferred tool results (overrides the agent's policy)."""
    conversation: bool = False
    """Keep the workflow open for more turns, sent as `send_message` updates, until `close_conversation`."""
    idle_timeout_seconds: float | None = None
    """For conversations: end after this long without a message (`None` waits forever)."""
    max_turns_per_run: int | None = None
    """For conversations: continue as new after this many turns (also done whenever Temporal suggests it)."""
    max_steps_per_run: int | None = None
    """For runs that are not conversations: continue as new in the middle of the run after this many model
    requests in one workflow run (also done whenever Temporal suggests it), so a run of any length finishes."""
    history_from: HistoryHandoff | None = None
    """Set by continue-as-new when the history is too large to carry: the conversation so far is the one this
    earlier run of the workflow ended with (read back by activities), followed by `message_history`."""
    checkpoint: RunCheckpoint | None = None
    """Set by a run that continued as new in the middle of an agent run: continue that agent run."""
    held_results: DeferredToolResults | None = None
    """Set by continue-as-new: deferred tool results that arrived before their calls were pending."""
    owner: str | None = None
    """Who started the run (a user id), recorded as the `AgentOwner` search attribute so an inbox can list a
    person's runs (see `workflows._search_attributes`)."""
    max_tool_calls_in_flight: int | None = None
    """Tool calls of one model response that run at once (the others wait, in call order); `None`: the agent's
    `DurableAgent.max_tool_calls_in_flight`."""
    max_tool_calls_per_response: int | None = None
    """Tool calls of one model response that run at all (the model is asked to ask again for the rest); `None`:
    the agent's `DurableAgent.max_tool_calls_per_response`."""
    usage: RunUsage | None = None
    """Usage to start from, counted against `usage_limits` and included in the result's usage: a run a tool of
    another run started with `usage=ctx.usage` (a child run, see `workflows._delegation`) counts its parent's."""
    delegated_by: str | None = None
    """Set for a run that a tool of its parent run started (a child run, see `workflows._delegation`): that tool
    call's id. Such a run tells its parent what it waits for, so a person answers it there."""
    decisions: list[DecisionRecord] | None = None
    """Set by continue-as-new: the decision records so far (the `status` query keeps listing them; a run that
    continues in the middle keeps its own in its result)."""
    answering_agent: str | None = None
    """For conversations: the served agent that answers the turns, when a hand-off (`ConversationMessage.hand_off_to`)
    made it another than `agent`, which still names the conversation (its workflow id, its search attributes). Set by
    continue-as-new."""
    agent_version: str | None = None
    """The version of `agent` the run started on, as an earlier run of the workflow recorded it (see
    `workflows._agent_version`). Set by continue-as-new."""


@dataclass
class HistoryHandoff:
    """Names the earlier workflow run whose conversation a run continues (see `activities._handoff`)."""

    workflow_id: str
    """The workflow."""
    run_id: str
    """The earlier run."""
    messages: int
    """How many messages its conversation has (checked when read back)."""


@dataclass
class AgentRunOutput:
    """Result of `AgentWorkflow`."""

    output: Any
    """The run's output (text, structured data, or `DeferredToolRequests`)."""
    new_messages: list[ModelMessage] = field(default_factory=list[ModelMessage])
    """The messages the run produced."""
    usage: RunUsage = field(default_factory=RunUsage)
    """Usage of the run."""
    run_id: str = ''
    """The run's id."""
    conversation_id: str = ''
    """The conversation's id."""
    earlier_messages_omitted: int = 0
    """How many of the run's first messages were left out of `new_messages` to keep the result under Temporal's
    payload size limit (0 normally); the `new_messages` query pages through all of them."""
    decisions: list[DecisionRecord] = field(default_factory=list[DecisionRecord])
    """How each deferred tool call of the run (of the turn, for a conversation's turn) was decided, in order."""


@dataclass
class MessagePage:
    """Input of the `new_messages` and `messages` queries: which of the messages to return."""

    offset: int = 0
    """Index of the first message."""
    limit: int = 100
    """At most this many messages (fewer if they would not fit in one reply)."""


@dataclass
class Rejection:
    """Part of a signal the run could not use: kept in the run's status (and logged) so no decision vanishes."""

    handler: str
    """The signal it came by."""
    reason: str
    """Why it was not applied."""
    tool_call_id: str | None = None
    """The tool call it was for, if any."""


@dataclass
class RunStatus:
    """What the `status` query returns."""

    state: Literal['running', 'awaiting_deferred_tools', 'awaiting_message', 'completed', 'failed'] = 'running'
    """Where the run is (`awaiting_message`: a conversation between turns)."""
    step: int = 0
    """Model requests made so far."""
    usage: RunUsage = field(default_factory=RunUsage)
    """Usage so far."""
    rejected: list[Rejection] = field(default_factory=list[Rejection])
    """The latest parts of signals the run could not use (unknown or already resolved tool call ids, malformed
    entries), oldest first; the valid parts of the same signals were applied."""
    external_events: list[PendingExternalEvent] = field(default_factory=list['PendingExternalEvent'])
    """The run's waits for external events (`RequestInput`) not yet ended, oldest first."""
    decisions: list[DecisionRecord] = field(default_factory=list[DecisionRecord])
    """How the run's deferred tool calls were decided, oldest first (the latest `MAX_DECISIONS_KEPT`)."""
    open_approvals: list[PendingApproval] = field(default_factory=list[PendingApproval])
    """The pending approvals under an approval rule, with who approved them so far and when they expire."""
    answering_agent: str | None = None
    """The agent that answers the conversation's turns since a hand-off (`ConversationMessage.hand_off_to`); `None`
    while the run's own agent does."""
    agent_version: str | None = None
    """The version of the run's agent it started on (`workflows.agent_fingerprint`), as its first model response
    recorded it (see `workflows._agent_version`); `None` until then, and for a run started before runs recorded it."""


@dataclass
class PendingExternalEvent:
    """A wait for an external event, as the `status` query lists it: resolve it by its token."""

    name: str
    """The wait's name (`RequestInput(name=...)`, `'deferred_tool_calls'` unless set)."""
    token: str
    """The resume token that resolves it (`resolve_external_event`, `agents answer`)."""
    since: datetime
    """When the wait began (UTC)."""
    expires: datetime | None = None
    """When it times out (UTC), or `None` for never."""


@dataclass
class ExternalEventResolution:
    """Input of the `resolve_external_event` update and the `submit_external_event` signal: ends one wait.

    With `failure`, the wait ends without an answer (`RequestInput` denies the pending approvals and fails the
    pending external calls, telling the model the reason); otherwise it ends with `payload`.
    """

    optional_fields_omitted: ClassVar[bool] = True
    """Written without the fields left at their defaults."""

    token: str
    """The resume token of the wait."""
    payload: Any = None
    """The answer (for `RequestInput`, the JSON form of `DeferredToolResults` naming only pending calls)."""
    failure: str | None = None
    """Why the wait ends without an answer (instead of `payload`)."""
    caller: str | None = None
    """Who answers (a free-form id, at most 255 characters): logged, and credited in the payload where the wait
    says how (`RequestInput`: `answered_by` of each call the payload answers without naming anyone)."""
    owner: str | None = None
    """The caller's owner id, checked as `ConversationMessage.owner` is (`None`: not checked)."""


@dataclass
class ConversationMessage:
    """Input of the `send_message` update: the user's next turn."""

    optional_fields_omitted: ClassVar[bool] = True
    """Written without the fields left at their defaults (a message without an owner is what it always was)."""

    prompt: str | list[UserContent]
    """The user prompt."""
    owner: str | None = None
    """Who sends it: the run rejects the update if this is not the `owner` it was started with (`None`: not
    checked, for operators' tools that act on any run)."""
    hand_off_to: str | None = None
    """Hand the conversation off: the served agent that answers this turn and the ones after it, in the same workflow
    and on the same history (`None`: the agent answering now). The run rejects the update, before anything is
    recorded, if its worker does not serve that agent or the conversation's deps do not fit it."""


@dataclass
class CancelTurn:
    """Input of the `cancel_turn` update (optional: the update also takes no input)."""

    optional_fields_omitted: ClassVar[bool] = True
    """Written without the fields left at their defaults."""

    reason: str | None = None
    """Why the turn is stopped; part of the cancelled `send_message`'s error."""
    owner: str | None = None
    """Who stops it, checked as `ConversationMessage.owner` is."""


@dataclass
class Caller:
    """The optional second argument of `resolve_deferred_tools` and `submit_deferred_tool_results`, whose first is
    the results themselves.

    A separate argument because the results are the agent's own `DeferredToolResults`, which know nothing of owners.
    """

    optional_fields_omitted: ClassVar[bool] = True
    """Written without the fields left at their defaults."""

    owner: str | None = None
    """The owner id the answer comes for, checked as `ConversationMessage.owner` is."""
    identity: str | None = None
    """Who answers (a free-form id, at most 255 characters): credited in `answered_by` for each call the results
    answer without naming anyone, checked against the agent's approval rules, and named in the decision records."""


@dataclass
class RunningTurn:
    """The turn in progress when the `messages` query answered (a single run counts as one turn)."""

    start: int
    """The index of the turn's first message (its user request) in the conversation's messages."""
    update_id: str | None = None
    """The id of the turn's `send_message` update (`None` for the turn that came with the run's start input)."""
    awaiting_deferred_tools: bool = False
    """The turn waits for deferred tool results; its messages end with the response that asked for them."""


@dataclass
class ConversationPage:
    """Result of the `messages` query: a page of the conversation's messages as they are now."""

    messages: list[ModelMessage] = field(default_factory=list[ModelMessage])
    """The messages the query's `MessagePage` asked for (fewer if they would not fit in one reply)."""
    total: int = 0
    """How many messages the workflow holds: completed turns, then the running turn's messages so far."""
    turn: RunningTurn | None = None
    """The turn in progress, if any: its messages are the last ones, and it may still change them."""
    history_from: HistoryHandoff | None = None
    """Set only while the run is still reading back the conversation an earlier run handed over by reference:
    that many messages come first, before the ones the workflow holds (and before the offsets, `total` and
    `turn.start`, which count from the first message the workflow holds). Read them from that run's event
    history (`activities._handoff.read_conversation`), or ask again once the run has loaded them."""


@dataclass
class WaitForTurn:
    """Input of the `wait_for_turn` update (optional: no input waits for the current turn)."""

    optional_fields_omitted: ClassVar[bool] = True
    """Written without the fields left at their defaults."""

    update_id: str | None = None
    """The turn's `send_message` update id (`None`: the running turn, or the next queued one)."""
    owner: str | None = None
    """Who waits, checked as `ConversationMessage.owner` is."""


@dataclass
class WaitForTurnResult:
    """Result of the `wait_for_turn` update: why the wait is over."""

    state: Literal['completed', 'failed', 'cancelled', 'awaiting_deferred_tools']
    """The turn ended (its `send_message` update has its result or failure), or it waits for deferred tool
    results: it goes on in the workflow once they arrive (`resolve_deferred_tools`)."""
    pending: DeferredToolRequests | None = None
    """The calls still waiting for results, when `state` is `awaiting_deferred_tools`."""


@dataclass
class CancelTurnResult:
    """Result of the `cancel_turn` update."""

    cancelled: bool
    """Whether a turn was running and ended cancelled (`False`: nothing was running, or it finished first)."""
