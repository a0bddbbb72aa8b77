"""What clients see of an `AgentWorkflow` run: its signals, updates and queries.

`AgentWorkflowHandlers` is the base class of `AgentWorkflow` (Temporal reads a workflow's handlers from its class
and its bases); the workflow owns the state they read and drives the run. The surface:

- turns of a conversation: `send_message`, `cancel_turn`, `wait_for_turn` (updates) and `close_conversation`;
- deferred tool results: `resolve_deferred_tools` (update) and `submit_deferred_tool_results` (signal), from the
  base class `workflows._answer_handlers.DeferredAnswerHandlers`;
- waits for external events (`RequestInput`), by resume token: `resolve_external_event` (update) and
  `submit_external_event` (signal), checked by `workflows._event_waits`;
- where the run is: `status`, `pending_deferred_tools` (from the same base), `messages` (the conversation as it is
  now) and `new_messages` (a completed run's messages, all of them).

Updates that act on a conversation may name their caller's `owner`; their validators reject one that is not the
owner the run was started with, before anything reaches history. A front end that starts a conversation with
update-with-start relies on this: two owners starting the same new conversation id at once both reach the one
workflow, and only the one whose start won gets in. An update that names no owner is not checked (operators' tools
act on any run, under Temporal's own access control).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

from temporalio import workflow
from temporalio.common import RawValue
from temporalio.exceptions import ApplicationError

from agent._deferred import DeferredToolRequests, DeferredToolResults
from agent._parts import ModelMessage, ModelRequest, UserPromptPart
from agent.run import AgentRun

from ._answer_handlers import MAX_REJECTIONS_KEPT, DeferredAnswerHandlers
from ._answering_agent import check_hand_off
from ._children import Children
from ._decisions import DecisionRecord
from ._door import parse_one
from ._event_waits import EventWaits, WaitNotReached
from ._ports import WorkflowPorts
from ._result_size import fit_result, message_page
from ._run_input import cancel_request, wait_request
from ._turns import Turn, TurnSlot
from ._types import (
    CONVERSATION_MOVING,
    TURN_CANCELLED,
    WAIT_NOT_REACHED,
    AgentRunInput,
    AgentRunOutput,
    CancelTurnResult,
    ConversationMessage,
    ConversationPage,
    ExternalEventResolution,
    HistoryHandoff,
    MessagePage,
    Rejection,
    RunningTurn,
    RunStatus,
    WaitForTurnResult,
)

__all__ = ('MAX_DECISIONS_KEPT', 'MAX_ENDED_TURNS_KEPT', 'MAX_REJECTIONS_KEPT', 'AgentWorkflowHandlers')

MAX_DECISIONS_KEPT = 100
"""How many decision records the `status` query lists (the newest; a run's result has all of its own)."""

MAX_ENDED_TURNS_KEPT = 20
"""How many ended turns `wait_for_turn` still finds by update id (a client may ask just after the end)."""

_RESOLUTION_INPUT = 'The resolve_external_event input'


class AgentWorkflowHandlers(DeferredAnswerHandlers):
    """The signal, update and query handlers of `AgentWorkflow`, over the state the workflow keeps.

    The run, signal and update handlers take what clients send as plain JSON (`*args`) and validate it
    themselves, so a malformed input is rejected instead of retrying a workflow task forever.
    """

    _input: AgentRunInput | None
    _conversation: bool
    _ports: WorkflowPorts | None
    _status: RunStatus
    _early: DeferredToolResults
    _closing: bool
    _handover_due: bool
    """The conversation continues as new once its queued turns are answered: it takes no new ones until then."""
    _new_messages: list[ModelMessage]
    _turn_slot: TurnSlot
    _live_run: AgentRun[Any, Any] | None
    _turns: deque[Turn]
    """Turns sent and not yet taken, oldest first."""
    _turn: Turn | None
    """The conversation's running turn."""
    _ended_turns: deque[Turn]
    """The latest turns that ended, for `wait_for_turn`."""
    _history: list[ModelMessage]
    """The conversation's messages up to the running turn (a single run's: its input history)."""
    _unloaded: HistoryHandoff | None
    """The earlier run whose conversation this run is still reading back, if it is."""
    _event_waits: EventWaits
    """The run's waits for external events, resolved by token."""
    _decisions: list[DecisionRecord]
    """The latest decision records of the run (see `workflows._decisions`)."""
    _children: Children
    """The run's child runs in progress and what they wait for (see `workflows._children`)."""
    _answers_received: int
    """How many `submit_deferred_tool_results` signals the run took (a child run reports after each)."""
    _answering: str
    """The agent that answers the conversation's turns (see `workflows._answering_agent`)."""

    def _handed_off_to(self) -> str | None:
        """The agent answering the conversation's turns, if a hand-off made it another than the run's own."""
        return self._answering if self._input is not None and self._answering != self._input.agent else None

    def _end_turn(self, turn: Turn) -> None:
        """Record that `turn` has ended (its `done`, `result` and `error` are set)."""
        if self._turn is turn:
            self._turn = None
        self._ended_turns.append(turn)

    # Turns of a conversation.

    @workflow.update(name='send_message')
    async def send_message(self, *args: Any) -> AgentRunOutput:
        """A new user turn in a conversation (one `ConversationMessage`); returns that turn's result."""
        message = parse_one(args, ConversationMessage, 'The send_message input')
        info = workflow.current_update_info()
        turn = Turn(message.prompt, update_id=info.id if info is not None else None, hand_off_to=message.hand_off_to)
        self._turns.append(turn)
        await workflow.wait_condition(lambda: turn.done)
        if turn.error is not None:
            raise turn.error
        assert turn.result is not None
        return fit_result(turn.result)

    @send_message.validator
    def _validate_message(self, *args: Any) -> None:
        if not self._conversation:
            raise ValueError('This run is not a conversation: start it with "conversation": true to send messages.')
        message = parse_one(args, ConversationMessage, 'The send_message input')
        self._check_owner(message.owner, 'send it messages')
        if message.hand_off_to is not None and self._input is not None:
            check_hand_off(self._input, message.hand_off_to)
        if self._closing:
            raise ValueError('The conversation is closing and takes no more messages.')
        if self._handover_due:
            raise ApplicationError(
                'The conversation is moving to its next workflow run; send the message again in a moment.',
                type=CONVERSATION_MOVING,
            )

    @workflow.update(name='cancel_turn')
    async def cancel_turn(self, *args: Any) -> CancelTurnResult:
        """Stop the conversation's running turn (optionally one `CancelTurn`); returns once the turn has ended.

        An update rather than a signal, so the caller learns whether a turn was running and, once it returns, that
        the turn is over (its `send_message` update has failed with `TURN_CANCELLED`) and the conversation takes the
        next message. Queued turns are not affected.
        """
        request = cancel_request(args)
        task = self._turn_slot.cancel(request.reason)
        if task is None:
            return CancelTurnResult(cancelled=False)
        workflow.logger.info('Cancelling the running turn%s', f': {request.reason}' if request.reason else '')
        await workflow.wait_condition(lambda: self._turn_slot.ended(task))
        return CancelTurnResult(cancelled=self._turn_slot.was_cancelled(task))

    @cancel_turn.validator
    def _validate_cancel(self, *args: Any) -> None:
        if not self._conversation:
            # A single run is one turn: cancelling the workflow (`temporal workflow cancel`) is how it is stopped.
            raise ValueError(
                'This run is not a conversation, so it has no turns to cancel; cancel the run itself instead '
                '(temporal workflow cancel --workflow-id <id>).'
            )
        self._check_owner(cancel_request(args).owner, 'stop its turns')

    @workflow.update(name='wait_for_turn')
    async def wait_for_turn(self, *args: Any) -> WaitForTurnResult:
        """Wait until a turn ends or waits for deferred tool results, and say which (optionally one `WaitForTurn`).

        This is how a front end learns, the moment it happens, that a turn stopped for a person's approval,
        without polling `pending_deferred_tools`. It is a way to wait, not to poll: every accepted update adds
        two events to the run's history (accepted, completed, with its input and result) and stays in the workflow
        until its turn ends or waits, even if its caller gave up on it. A client calling it in a loop with a short
        timeout would grow the history with each call (bringing continue-as-new closer) and pile up handlers; call
        it once for each stretch of a turn: from its start, and again after answering its approvals.
        """
        request = wait_request(args)
        turn = self._find_turn(request.update_id)
        assert turn is not None  # the validator found it
        await workflow.wait_condition(lambda: turn.done or self._awaiting(turn) is not None)
        if turn.done:
            return WaitForTurnResult(_outcome(turn))
        return WaitForTurnResult('awaiting_deferred_tools', self._awaiting(turn))

    @wait_for_turn.validator
    def _validate_wait(self, *args: Any) -> None:
        if not self._conversation:
            raise ValueError('This run is not a conversation, so it has no turns to wait for; wait for its result.')
        request = wait_request(args)
        self._check_owner(request.owner, 'follow its turns')
        if self._find_turn(request.update_id) is None:
            if request.update_id is None:
                raise ValueError('No turn is running or queued in this conversation.')
            raise ValueError(
                f'No turn of this run came by update {request.update_id!r}: it never did, or it ended long enough ago '
                'that the run no longer keeps it (its send_message update has the result).'
            )

    def _find_turn(self, update_id: str | None) -> Turn | None:
        """The turn of `update_id`, or for `None` the running turn (else the next queued one)."""
        if update_id is None:
            return self._turn or (self._turns[0] if self._turns else None)
        running = [self._turn] if self._turn is not None else []
        return next((t for t in (*running, *self._turns, *self._ended_turns) if t.update_id == update_id), None)

    def _awaiting(self, turn: Turn) -> DeferredToolRequests | None:
        """The deferred tool calls `turn` waits for, if it is the running turn and waits."""
        return self.pending_deferred_tools() if turn is self._turn else None

    @workflow.signal(name='close_conversation')
    def close_conversation(self, *args: Any) -> None:
        """End the conversation once queued turns are done (any input is ignored)."""
        self._closing = True

    @workflow.signal(dynamic=True)
    def unknown_signal(self, name: str, args: Sequence[RawValue]) -> None:
        """A signal this workflow does not take: recorded as rejected instead of waiting in a buffer forever."""
        self._reject(
            [Rejection(name, f'Unknown signal {name!r}; AgentWorkflow takes submit_deferred_tool_results, '
                       'submit_external_event and close_conversation')]
        )  # fmt: skip

    # Waits for external events.

    @workflow.update(name='resolve_external_event')
    def resolve_external_event(self, *args: Any) -> None:
        """End a wait for an external event by its token (one `ExternalEventResolution`): with a payload, or failed.

        The validator refuses, before anything reaches history, a malformed token, one of another workflow or run,
        a wait that is unknown or has ended (resolved, failed, timed out), and a payload the wait refuses.
        """
        self._event_waits.settle(parse_one(args, ExternalEventResolution, _RESOLUTION_INPUT))

    @resolve_external_event.validator
    def _validate_external_event(self, *args: Any) -> None:
        resolution = parse_one(args, ExternalEventResolution, _RESOLUTION_INPUT)
        self._check_owner(resolution.owner, 'resolve its waits')
        try:
            self._event_waits.check(resolution)
        except WaitNotReached as exc:
            raise ApplicationError(str(exc), type=WAIT_NOT_REACHED, non_retryable=True) from None

    @workflow.signal(name='submit_external_event')
    def submit_external_event(self, *args: Any) -> None:
        """End a wait by its token, as `resolve_external_event` does; what it cannot take is listed under `rejected`.

        A signal cannot be refused: one the update would refuse changes nothing but `status().rejected`.
        """
        handler = 'submit_external_event'
        try:
            resolution = parse_one(args, ExternalEventResolution, f'The {handler} input')
            self._check_owner(resolution.owner, 'resolve its waits')
            self._event_waits.submit(resolution)  # held if it is for the next wait, not reached yet
        except ValueError as exc:  # InvalidInput and the waits' refusals
            self._reject([Rejection(handler, str(exc))])
        except ApplicationError as exc:  # another owner's
            self._reject([Rejection(handler, exc.message)])

    # Where the run is.

    @workflow.query(name='new_messages')
    def new_messages(self, page: MessagePage | None = None) -> list[ModelMessage]:
        """A page of the completed run's new messages: all of them, even those left out of a large result."""
        return message_page(self._new_messages, page or MessagePage())

    @workflow.query(name='messages')
    def messages(self, page: MessagePage | None = None) -> ConversationPage:
        """A page of the conversation's messages as they are now: its completed turns, then the running turn's
        messages so far, its user request first (for a single run: its history so far).

        A cancelled turn shows what it completed; a turn waiting for approvals ends with the response that asked
        for them. A query cannot run activities, so while the run is still reading back the conversation an earlier
        run handed over by reference (the first moments of the run), the reply holds only the messages after it and
        names that run in `history_from`, for the caller to read the rest from there (or to ask again a moment
        later): the workflow never waits on its own history to answer.
        """
        messages, turn = self._messages_now()
        shown = message_page(messages, page or MessagePage()) if messages else []
        return ConversationPage(shown, len(messages), turn, self._unloaded)

    def _messages_now(self) -> tuple[list[ModelMessage], RunningTurn | None]:
        live = self._live_run
        if self._conversation:
            turn = self._turn
            if turn is None:
                return list(self._history), None
            prompt, update_id = turn.prompt, turn.update_id
        elif self._status.state in ('completed', 'failed'):
            return (live.all_messages() if live is not None else list(self._history)), None
        else:
            prompt, update_id = (self._input.prompt if self._input is not None else None), None
        if live is None:
            messages, start = list(self._history), len(self._history)
        else:
            messages = live.all_messages()
            start = len(messages) - len(live.new_messages())
        if start == len(messages) and prompt is not None:
            # The agent run adds its request when it sends it; until then the turn's user message is only here.
            messages.append(ModelRequest(parts=[UserPromptPart(prompt, timestamp=workflow.now())]))
        return messages, RunningTurn(start, update_id, self.pending_deferred_tools() is not None)

    @workflow.query(name='status')
    def status(self) -> RunStatus:
        """Where the run is: state, step and usage, what it rejected, and its waits for external events."""
        status = self._status
        waiting = self._ports is not None and self._ports.pending is not None
        waiting = waiting or self._children.pending() is not None
        if status.state == 'running' and waiting:
            status = replace(status, state='awaiting_deferred_tools')
        ports = self._ports
        return replace(
            status,
            external_events=self._event_waits.pending(),
            # The run's own and its children's (under their paths), in the order they were made.
            decisions=sorted([*self._decisions, *self._children.decisions], key=lambda r: r.at)[-MAX_DECISIONS_KEPT:],
            open_approvals=[*(ports.open_approvals() if ports is not None else []), *self._children.open_approvals()],
            answering_agent=self._handed_off_to(),
        )


def _outcome(turn: Turn) -> Literal['completed', 'failed', 'cancelled']:
    if turn.result is not None:
        return 'completed'
    error = turn.error
    return 'cancelled' if isinstance(error, ApplicationError) and error.type == TURN_CANCELLED else 'failed'
