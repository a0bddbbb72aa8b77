"""`AnswerIntake`: how a durable run takes in the answers to the deferred tool calls it waits for.

The part of `WorkflowPorts` that the run's doors (the `resolve_deferred_tools` update, the
`submit_deferred_tool_results` signal) talk to: it checks answers against the pending calls and the agent's
approval rules (`workflows._decisions.Ballots`), keeps answers that come before their calls are pending, counts
votes until a call is decided, denies requests whose rule expires, and hands each step's decision records to the
run. The waiting itself (timers, reminders, the timeout policy) stays in `WorkflowPorts`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from temporalio import workflow

from agent._deferred import DeferredToolRequests, DeferredToolResults, ToolDenied
from agent._ports import RunPorts

from ._decisions import Ballots, DecisionRecord, PendingApproval, Vote, decision_records

__all__ = ('AnswerIntake',)


class AnswerIntake(RunPorts):
    """Answers to a run's deferred tool calls: checked, held, counted and recorded (see the module docstring)."""

    pending: DeferredToolRequests | None
    """The calls the run waits for, while it waits."""
    collected: DeferredToolResults
    """The decided answers to `pending` so far."""
    early: DeferredToolResults
    """Answers that came before their calls were pending."""
    refused_early: dict[str, str]
    """Why held answers were refused when the run's next calls became pending, by tool call id (the last time)."""
    ballots: Ballots | None
    """The votes on the approvals the run waits for, under the agent's approval rules."""
    reject: Callable[[list[tuple[str, str]]], None]
    """Told of answers that could not be used, as `(tool call id, reason)` (the run's status lists them)."""
    decided: Callable[[list[DecisionRecord]], None]
    """Told of the decision records of each step's deferred calls (the run's status and result list them)."""
    _votes: dict[str, list[Vote]]
    """The last wait's votes, until its decisions are recorded."""

    def deferred_results_applied(self, requests: DeferredToolRequests, results: DeferredToolResults) -> None:
        """Record how each call of `requests` that `results` answers was decided (see `workflows._decisions`)."""
        votes, self._votes = self._votes, {}
        records = decision_records(requests, results, votes, results.answered_by.get)
        if records:
            self.decided(records)

    def open_approvals(self) -> list[PendingApproval]:
        """The pending approvals under an approval rule, with who approved them so far."""
        remaining = self.pending.remaining(self.collected) if self.pending is not None else None
        if remaining is None or self.ballots is None:
            return []
        return self.ballots.open([call.tool_call_id for call in remaining.approvals])

    def _next_expiry(self) -> datetime | None:
        """When the first pending approval under a rule with an expiry expires, if one does."""
        expiries = [approval.expires for approval in self.open_approvals() if approval.expires is not None]
        return min(expiries) if expiries else None

    def _expire(self) -> bool:
        """Deny the approvals whose request has expired; `False` if one's rule escalates instead."""
        ballots = self.ballots
        assert ballots is not None
        now = workflow.now()
        for approval in self.open_approvals():
            if approval.expires is None or approval.expires > now:
                continue
            rule = ballots.rule(approval.tool_call_id)
            assert rule is not None
            if rule.on_expiry == 'escalate':
                return False
            self.collected.approvals[approval.tool_call_id] = ToolDenied(rule.expiry_message)
            ballots.votes.pop(approval.tool_call_id, None)  # no one decided it: the record names no one
        return True

    def hold_early(self, results: DeferredToolResults) -> None:
        """Keep results that arrive before their calls are pending (a fast reviewer); they apply once they are."""
        self.early.update(results)

    def _take_early_results(self, requests: DeferredToolRequests) -> None:
        if not self.early.tool_call_ids:
            return
        ids = set(requests.tool_call_ids)
        early, self.early = self.early, DeferredToolResults()
        matching = DeferredToolResults(
            approvals={k: v for k, v in early.approvals.items() if k in ids},
            calls={k: v for k, v in early.calls.items() if k in ids},
            metadata={k: v for k, v in early.metadata.items() if k in ids},
            answered_by={k: v for k, v in early.answered_by.items() if k in ids},
        )
        unmatched = [
            (call_id, f'Result for tool call {call_id!r}, which was not among the calls that became pending '
             f'({sorted(ids)}).') for call_id in sorted((early.tool_call_ids | set(early.metadata)) - ids)
        ]  # fmt: skip
        # Held answers meet the approval rules now that their calls are known (a refused one is listed as rejected).
        accepted, refused = self.partition_results(matching)
        self.refused_early = dict([*unmatched, *refused])
        self.reject([*unmatched, *refused])
        self.add_results(accepted)

    def held(self, call_ids: set[str]) -> set[str]:
        """Those of `call_ids` whose answers are held, waiting for their calls to be pending."""
        return call_ids & (self.early.tool_call_ids | set(self.early.metadata))

    def drop_held(self, call_ids: set[str]) -> None:
        """Forget the held answers to `call_ids` (their sender has been told they were not used)."""
        early = self.early
        for entries in (early.approvals, early.calls, early.metadata, early.answered_by):
            for call_id in call_ids:
                entries.pop(call_id, None)

    def partition_results(self, results: DeferredToolResults) -> tuple[DeferredToolResults, list[tuple[str, str]]]:
        """Split `results` into those for pending calls and `(tool call id, reason)` for the rest."""
        if self.pending is None:
            ids = sorted(results.tool_call_ids | set(results.metadata))
            return DeferredToolResults(), [
                (call_id, 'No tool calls are waiting for results in this run.') for call_id in ids
            ]
        remaining = self.pending.remaining(self.collected)
        approval_ids = {call.tool_call_id for call in remaining.approvals} if remaining is not None else set[str]()
        call_ids = {call.tool_call_id for call in remaining.calls} if remaining is not None else set[str]()
        resolved = self.collected.tool_call_ids

        def refusal(call_id: str, expected: set[str], other: set[str], label: str) -> str | None:
            if call_id in expected:
                return None
            if call_id in resolved:
                return f'Tool call {call_id!r} was already resolved.'
            if call_id in other:
                kind = 'calls' if label == 'approvals' else 'approvals'
                return f'Tool call {call_id!r} waits for a result in {kind!r}, not in {label!r}.'
            return f'Unknown tool call id {call_id!r}; pending ids: {sorted(approval_ids | call_ids)}'

        accepted = DeferredToolResults()
        refused: list[tuple[str, str]] = []
        for label, entries, expected, other in (
            ('approvals', results.approvals, approval_ids, call_ids),
            ('calls', results.calls, call_ids, approval_ids),
        ):
            target: dict[str, Any] = getattr(accepted, label)
            for call_id, value in entries.items():
                reason = refusal(call_id, expected, other, label)
                if reason is None and label == 'approvals' and self.ballots is not None:
                    reason = self.ballots.refusal(call_id, value, results.answered_by.get(call_id))
                if reason is None:
                    target[call_id] = value
                else:
                    refused.append((call_id, reason))
        for call_id, meta in results.metadata.items():
            if call_id in approval_ids | call_ids:
                accepted.metadata[call_id] = meta
            else:
                refused.append((call_id, f'Metadata for tool call {call_id!r}, which is not pending.'))
        taken = accepted.tool_call_ids
        accepted.answered_by = {k: v for k, v in results.answered_by.items() if k in taken}
        return accepted, refused

    def check_results(self, results: DeferredToolResults) -> None:
        """Reject results for calls that are not pending (unknown or already resolved).

        Raises:
            ValueError: naming the offending ids and the ones still pending.
        """
        if self.pending is None:
            raise ValueError('No tool calls are waiting for results in this run.')
        _, refused = self.partition_results(results)
        if refused:
            raise ValueError(' '.join(reason for _, reason in refused))

    def add_results(self, results: DeferredToolResults) -> DeferredToolRequests | None:
        """Record results (already checked) and return what is still pending.

        An approval under a rule that needs more approvers is counted, and taken once it decides the call.
        """
        ballots = self.ballots
        if ballots is not None:
            for call_id, value in list(results.approvals.items()):
                if not ballots.cast(call_id, value, results.answered_by.get(call_id)):
                    del results.approvals[call_id]
                    results.metadata.pop(call_id, None)
                    results.answered_by.pop(call_id, None)
        self.collected.update(results)
        return self.pending.remaining(self.collected) if self.pending is not None else None
