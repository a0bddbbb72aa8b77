"""What clients see of an `AgentWorkflow` run: its signals, updates and queries.

`AgentWorkflowHandlers` is the base class of `AgentWorkflow` (Temporal reads a workflow's handlers from its class
and its bases); the workflow owns the state they read and drives the run. The surface:

- turns of a conversation: `send_message`, `cancel_turn`, `wait_for_turn` (updates) and `close_conversation`;
- deferred tool results: `resolve_deferred_tools` (update) and `submit_deferred_tool_results` (signal);
- waits for external events (`RequestInput`), by resume token: `resolve_external_event` (update) and
  `submit_external_event` (signal), checked by `workflows._event_waits`;
- where the run is: `status`, `pending_deferred_tools`, `messages` (the conversation as it is now) and
  `new_messages` (a completed run's messages, all of them).

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

from ._answering_agent import check_hand_off
from ._child_answers import CHILD_SIGNAL, child_refusals, forward_to_children
from ._children import ChildPending, Children, only_approvals
from ._decisions import DecisionRecord
from ._door import InvalidInput, parse_deferred_results, parse_one
from ._event_waits import EventWaits, WaitNotReached
from ._ports import WorkflowPorts
from ._result_size import fit_result, message_page
from ._run_input import caller_input, cancel_request, deferred_resolution, wait_request
from ._turns import Turn, TurnSlot
from ._types import (
    CONVERSATION_MOVING,
    NOT_OWNER,
    TURN_CANCELLED,
    WAIT_NOT_REACHED,
    AgentRunInput,
    AgentRunOutput,
    Caller,
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

MAX_REJECTIONS_KEPT = 20
"""How many rejected signal parts the `status` query lists (the newest)."""

MAX_DECISIONS_KEPT = 100
"""How many decision records the `status` query lists (the newest; a run's result has all of its own)."""

MAX_ENDED_TURNS_KEPT = 20
"""How many ended turns `wait_for_turn` still finds by update id (a client may ask just after the end)."""

_RESOLUTION_INPUT = 'The resolve_external_event input'


class AgentWorkflowHandlers:
    """The signal, update and query handlers of `AgentWorkflow`, over the state the workflow keeps.

    The run, signal and update handlers take what clients send as plain JSON (`*args`) and validate it
    themselves, so a malformed input is rejected instead of retrying a workflow task forever.
    """

    _input: AgentRunInput | None
    _conversation: bool
    _ports: WorkflowPorts | None
    _status: RunStatus
    _early: DeferredToolResults
    _decisions: list[DecisionRecord]
    """How the run's latest deferred calls were decided (the last `MAX_DECISIONS_KEPT`)."""
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

    # Deferred tool results.

    @workflow.signal(name='submit_deferred_tool_results')
    async def submit_deferred_tool_results(self, *args: Any) -> None:
        """Deliver results for deferred tool calls (one `DeferredToolResults`).

        Each tool call's entry stands on its own: valid ones are applied (kept for later if their calls are not
        pending yet: a reviewer can be faster than the model), and the rest are listed in `status().rejected`.
        """
        handler = 'submit_deferred_tool_results'
        try:
            caller = caller_input(args[1:], f'The {handler} caller') if len(args) == 2 else Caller()
            results, rejected = parse_deferred_results(args[:1] if len(args) == 2 else args, handler)
        except InvalidInput as exc:
            self._reject([Rejection(handler, str(exc))])
            return
        self._reject(rejected)
        self._answers_received += 1  # a child run reports to its parent again, whatever the answer changed
        _credit(results, caller.identity)
        results, theirs = self._children.split(results)
        if theirs:
            refused = child_refusals(self._children, theirs)
            self._reject([Rejection(handler, reason, path) for path, reason in refused])
            await forward_to_children(self._children, self._children.without(theirs, {path for path, _ in refused}))
            if not (results.tool_call_ids or results.metadata):
                return
        ports = self._ports
        if ports is None or ports.pending is None:
            if ports is None:
                self._early.update(results)
            else:
                ports.hold_early(results)
            return
        accepted, refused = ports.partition_results(results)
        self._reject([Rejection(handler, reason, call_id) for call_id, reason in refused])
        ports.add_results(accepted)

    @workflow.signal(name=CHILD_SIGNAL)
    def child_deferred_tools(self, *args: Any) -> None:
        """A child run says what it waits for now (one `ChildPending`); see `workflows._children`."""
        try:
            report = parse_one(args, ChildPending, f'The {CHILD_SIGNAL} input')
        except InvalidInput as exc:
            self._reject([Rejection(CHILD_SIGNAL, str(exc))])
            return
        self._children.report(report)  # one from a child that has ended is dropped

    @workflow.signal(dynamic=True)
    def unknown_signal(self, name: str, args: Sequence[RawValue]) -> None:
        """A signal this workflow does not take: recorded as rejected instead of waiting in a buffer forever."""
        self._reject(
            [Rejection(name, f'Unknown signal {name!r}; AgentWorkflow takes submit_deferred_tool_results, '
                       'submit_external_event and close_conversation')]
        )  # fmt: skip

    def _reject(self, rejections: list[Rejection]) -> None:
        for rejection in rejections:
            workflow.logger.warning('Rejected part of %s: %s', rejection.handler, rejection.reason)
        kept = self._status.rejected
        kept.extend(rejections)
        del kept[:-MAX_REJECTIONS_KEPT]

    @workflow.update(name='resolve_deferred_tools')
    async def resolve_deferred_tools(self, *args: Any) -> DeferredToolRequests | None:
        """Deliver results for pending deferred tool calls; returns what still waits.

        Takes one `DeferredToolResults`, optionally followed by a `Caller` naming who answers. Answers for a child
        run's calls (by path, see `workflows._children`) are forwarded to the child.
        """
        results, caller = deferred_resolution(args)
        _credit(results, caller.identity)
        results, theirs = self._children.split(results)
        await forward_to_children(self._children, theirs)
        if results.tool_call_ids or results.metadata:
            assert self._ports is not None
            if self._ports.pending is None:
                await self._held_until_asked(self._ports, results)
            else:
                self._ports.add_results(results)
        return self.pending_deferred_tools()

    async def _held_until_asked(self, ports: WorkflowPorts, results: DeferredToolResults) -> None:
        """Hold answers that came while the run was still working towards the calls they answer, until it asks for
        them (a reviewer can be faster than the run: an approval sent while its workflow task was not yet applied,
        or straight from a streamed model response).

        Raises:
            ApplicationError: if they were refused when the calls became pending (not among them, or not allowed by
                the approval rules), or the run stopped working without asking for them.
        """
        call_ids = results.tool_call_ids | set(results.metadata)
        ports.hold_early(results)
        await workflow.wait_condition(lambda: not ports.held(call_ids) or self._status.state != 'running')
        if unasked := ports.held(call_ids):
            ports.drop_held(unasked)
            raise ApplicationError(
                f'The run stopped working ({self._status.state}) without asking for tool calls {sorted(unasked)}: '
                'nothing was applied.',
                non_retryable=True,
            )
        if refused := [ports.refused_early[call_id] for call_id in sorted(call_ids) if call_id in ports.refused_early]:
            raise ApplicationError(' '.join(refused), non_retryable=True)

    @resolve_deferred_tools.validator
    def _validate_resolution(self, *args: Any) -> None:
        results, caller = deferred_resolution(args)
        self._check_owner(caller.owner, 'answer its approvals')
        _credit(results, caller.identity)
        results, theirs = self._children.split(results)
        if refused := child_refusals(self._children, theirs):
            raise ValueError(' '.join(reason for _, reason in refused))
        if theirs and not (results.tool_call_ids or results.metadata):
            return
        if self._ports is None:
            raise ValueError('The run is not waiting for deferred tool results yet.')
        if self._ports.pending is None and self._status.state == 'running':
            # Working towards its next calls: the answers wait for them (see `_held_until_asked`), unless they answer
            # calls decided already (a second click on Approve).
            decided = {record.tool_call_id for record in self._decisions}
            if done := sorted((results.tool_call_ids | set(results.metadata)) & decided):
                raise ValueError(' '.join(f'Tool call {call_id!r} was already resolved.' for call_id in done))
            return
        self._ports.check_results(results)

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

    def _check_owner(self, owner: str | None, action: str) -> None:
        """Reject an update whose caller is not the run's owner (one that names no owner is not checked).

        Raises:
            ApplicationError: of type `NOT_OWNER`.
        """
        if owner is None:
            return
        started_by = self._input.owner if self._input is not None else None
        if owner != started_by:
            raise ApplicationError(
                f'{owner!r} does not own this run, so it cannot {action}.', type=NOT_OWNER, non_retryable=True
            )

    # Where the run is.

    @workflow.query(name='pending_deferred_tools')
    def pending_deferred_tools(self, caller: str | None = None) -> DeferredToolRequests | None:
        """The deferred tool calls still waiting for results, or `None`.

        With `caller` (an identity), only the approvals it may answer now under the agent's approval rules (not
        those it approved already), and the external calls; `None` if that leaves nothing.
        """
        ports = self._ports
        remaining = (
            ports.pending.remaining(ports.collected) if ports is not None and ports.pending is not None else None
        )
        if caller is not None and remaining is not None and ports is not None and ports.ballots is not None:
            ballots = ports.ballots
            approvals = [call for call in remaining.approvals if ballots.may_answer(call.tool_call_id, caller)]
            remaining = only_approvals(remaining, approvals)
        theirs = self._children.pending()
        if theirs is not None and caller is not None:
            approvals = [call for call in theirs.approvals if self._child_may_answer(call.tool_call_id, caller)]
            theirs = only_approvals(theirs, approvals)
        if theirs is None:
            return remaining
        if remaining is None:
            return theirs
        return DeferredToolRequests(
            calls=[*remaining.calls, *theirs.calls],
            approvals=[*remaining.approvals, *theirs.approvals],
            metadata={**remaining.metadata, **theirs.metadata},
        )

    def _child_may_answer(self, path: str, caller: str) -> bool:
        _, theirs = self._children.split(DeferredToolResults(approvals={path: True}, answered_by={path: caller}))
        return not child_refusals(self._children, theirs)

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


def _credit(results: DeferredToolResults, identity: str | None) -> None:
    """Credit `identity` in `answered_by` for each call `results` answers without naming anyone."""
    if identity is None:
        return
    for call_id in results.tool_call_ids:
        results.answered_by.setdefault(call_id, identity)
