"""The handlers through which a run takes answers to its deferred tool calls, and says which calls wait.

`DeferredAnswerHandlers` is a base class of `AgentWorkflowHandlers` (see `workflows._workflow_handlers`): the
`resolve_deferred_tools` update, the `submit_deferred_tool_results` signal, the signal by which a child run reports
what it waits for, and the `pending_deferred_tools` query. What it checks answers against (the pending calls, the
approval rules, the answers held for calls not asked for yet) is the run's `AnswerIntake` (`workflows._answer_intake`).
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow
from temporalio.exceptions import ApplicationError

from agent._deferred import DeferredToolRequests, DeferredToolResults

from ._child_answers import CHILD_SIGNAL, child_refusals, forward_to_children
from ._children import ChildPending, Children, only_approvals
from ._decisions import DecisionRecord
from ._door import InvalidInput, parse_deferred_results, parse_one
from ._ports import WorkflowPorts
from ._run_input import caller_input, deferred_resolution
from ._types import NOT_OWNER, AgentRunInput, Caller, Rejection, RunStatus

__all__ = ('MAX_REJECTIONS_KEPT', 'DeferredAnswerHandlers')

MAX_REJECTIONS_KEPT = 20
"""How many rejected signal parts the `status` query lists (the newest)."""


class DeferredAnswerHandlers:
    """Answers to a run's deferred tool calls in (update and signals), what waits out (query)."""

    _input: AgentRunInput | None
    _ports: WorkflowPorts | None
    _status: RunStatus
    _early: DeferredToolResults
    """Answers that came before the run's ports were set up (they are held by the ports from then)."""
    _decisions: list[DecisionRecord]
    """The latest decision records of the run (see `workflows._decisions`)."""
    _children: Children
    """The run's child runs in progress and what they wait for (see `workflows._children`)."""
    _answers_received: int
    """How many `submit_deferred_tool_results` signals the run took (a child run reports after each)."""

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

    def _reject(self, rejections: list[Rejection]) -> None:
        for rejection in rejections:
            workflow.logger.warning('Rejected part of %s: %s', rejection.handler, rejection.reason)
        kept = self._status.rejected
        kept.extend(rejections)
        del kept[:-MAX_REJECTIONS_KEPT]

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


def _credit(results: DeferredToolResults, identity: str | None) -> None:
    """Credit `identity` in `answered_by` for each call `results` answers without naming anyone."""
    if identity is None:
        return
    for call_id in results.tool_call_ids:
        results.answered_by.setdefault(call_id, identity)
