"""A run's child runs (tools' delegated runs, see `workflows._delegation`) and the approvals they wait for.

A child that waits for deferred tool results tells its parent what it waits for, with the `child_deferred_tools`
signal, each time that changes (and once more, empty, when its wait ends); a child that has children of its own
passes theirs on as part of its own. The parent lists them with its own calls, under a path: a child's call `r-2`,
started by the parent's tool call `p-1`, is `p-1/r-2` in the parent's `pending_deferred_tools`, `status`, the inbox
and the pages. An answer for such a path, sent to the parent, is checked against what the child said it waits for
(and against the child agent's approval rules where the parent can tell: who may answer, who answered already) and
forwarded to the child by signal, which applies it as its own doors do.

The parent knows of a child from the moment it starts it until it ends, so an answer never goes to a child that is
not running; what a child says after its end is dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from agent._deferred import DeferredToolRequests, DeferredToolResults
from agent._parts import ToolCallPart

from ._decisions import DecisionRecord, PendingApproval

__all__ = ('PATH_SEPARATOR', 'ChildPending', 'ChildRun', 'Children', 'only_approvals')

PATH_SEPARATOR = '/'
"""Joins the delegating tool call's id and the child's call id in the parent's lists."""


@dataclass
class ChildRun:
    """A child run in progress, started by one of the run's tool calls."""

    workflow_id: str
    """The child's workflow id."""
    agent: str
    """The child's agent."""
    tool_call_id: str
    """The parent's tool call that started it: the first part of its calls' paths."""


@dataclass
class ChildPending:
    """Input of the `child_deferred_tools` signal: what a child run waits for now (its children's included)."""

    workflow_id: str
    """The child's workflow id."""
    pending: DeferredToolRequests | None = None
    """The calls it waits for (`None`: nothing, its wait is over)."""
    open_approvals: list[PendingApproval] = field(default_factory=list[PendingApproval])
    """Its approvals under approval rules, with who approved them so far."""
    decisions: list[DecisionRecord] = field(default_factory=list[DecisionRecord])
    """How its deferred calls were decided so far (its children's included, under their paths)."""


class Children:
    """The run's running children and what each waits for (see the module docstring)."""

    def __init__(self) -> None:
        self.running: dict[str, ChildRun] = {}
        self._pending: dict[str, ChildPending] = {}
        self.changed = 0
        """Counts changes of what the children wait for (a run that is itself a child reports on each)."""
        self.decisions: list[DecisionRecord] = []
        """How the children's deferred calls were decided, under their paths, in the order the run learned it."""
        self._decided: set[tuple[str, str]] = set()  # (child workflow id, call id) of the records above

    def started(self, child: ChildRun) -> None:
        """`child` has been started."""
        self.running[child.workflow_id] = child

    def ended(self, workflow_id: str) -> None:
        """The child has ended: it waits for nothing any more."""
        self.running.pop(workflow_id, None)
        if self._pending.pop(workflow_id, None) is not None:
            self.changed += 1

    def report(self, report: ChildPending) -> bool:
        """Take a child's report; `False` if it is not a running child of this run (then it is dropped)."""
        if report.workflow_id not in self.running:
            return False
        if report.pending is None or not report.pending.tool_call_ids:
            self._pending.pop(report.workflow_id, None)
        else:
            self._pending[report.workflow_id] = report
        prefix = self.running[report.workflow_id].tool_call_id + PATH_SEPARATOR
        for record in report.decisions:
            if (report.workflow_id, record.tool_call_id) not in self._decided:
                self._decided.add((report.workflow_id, record.tool_call_id))
                self.decisions.append(replace(record, tool_call_id=prefix + record.tool_call_id))
        self.changed += 1
        return True

    def forwarded(self, workflow_id: str, results: DeferredToolResults) -> None:
        """`results` went to the child: its calls are no longer listed as waiting until it says otherwise (it
        reports again once it has taken them, listing any it still waits for)."""
        report = self._pending.get(workflow_id)
        if report is None or report.pending is None:
            return
        answered = results.tool_call_ids
        remaining = only_approvals(
            DeferredToolRequests(
                calls=[c for c in report.pending.calls if c.tool_call_id not in answered],
                approvals=report.pending.approvals,
                metadata=report.pending.metadata,
            ),
            [c for c in report.pending.approvals if c.tool_call_id not in answered],
        )
        self._pending[workflow_id] = replace(report, pending=remaining)
        if remaining is None:
            del self._pending[workflow_id]
        self.changed += 1

    def waiting(self, workflow_id: str) -> bool:
        """Whether `workflow_id` is a running child that said it waits for a person."""
        return workflow_id in self.running and workflow_id in self._pending

    def pending(self) -> DeferredToolRequests | None:
        """What the children wait for, under their paths (`None` for nothing)."""
        merged = DeferredToolRequests()
        for workflow_id, report in self._pending.items():
            prefix = self.running[workflow_id].tool_call_id + PATH_SEPARATOR
            assert report.pending is not None
            merged.approvals.extend(_under(call, prefix) for call in report.pending.approvals)
            merged.calls.extend(_under(call, prefix) for call in report.pending.calls)
            merged.metadata.update({prefix + k: v for k, v in report.pending.metadata.items()})
        return merged if merged.tool_call_ids else None

    def open_approvals(self) -> list[PendingApproval]:
        """The children's approvals under rules, under their paths."""
        shown: list[PendingApproval] = []
        for workflow_id, report in self._pending.items():
            prefix = self.running[workflow_id].tool_call_id + PATH_SEPARATOR
            shown.extend(
                replace(approval, tool_call_id=prefix + approval.tool_call_id) for approval in report.open_approvals
            )
        return shown

    def split(self, results: DeferredToolResults) -> tuple[DeferredToolResults, dict[str, DeferredToolResults]]:
        """`results` as the run's own and, by child workflow id, each child's (ids without their path)."""
        own = DeferredToolResults()
        theirs: dict[str, DeferredToolResults] = {}
        prefixes = {child.tool_call_id + PATH_SEPARATOR: workflow_id for workflow_id, child in self.running.items()}
        for label in ('approvals', 'calls', 'metadata', 'answered_by'):
            entries: Mapping[str, object] = getattr(results, label)
            for call_id, value in entries.items():
                child = next(((p, w) for p, w in prefixes.items() if call_id.startswith(p)), None)
                if child is None:
                    getattr(own, label)[call_id] = value
                else:
                    prefix, workflow_id = child
                    target = theirs.setdefault(workflow_id, DeferredToolResults())
                    getattr(target, label)[call_id.removeprefix(prefix)] = value
        return own, theirs

    def without(self, theirs: dict[str, DeferredToolResults], refused: set[str]) -> dict[str, DeferredToolResults]:
        """The children's answers (as `split` gives them) without those whose path is in `refused`."""
        kept: dict[str, DeferredToolResults] = {}
        for workflow_id, results in theirs.items():
            prefix = self.running[workflow_id].tool_call_id + PATH_SEPARATOR
            out = DeferredToolResults()
            for label in ('approvals', 'calls', 'metadata', 'answered_by'):
                entries: dict[str, Any] = getattr(results, label)
                getattr(out, label).update({k: v for k, v in entries.items() if prefix + k not in refused})
            if out.tool_call_ids:
                kept[workflow_id] = out
        return kept

    def refusals(self, workflow_id: str, results: DeferredToolResults) -> list[tuple[str, str]]:
        """`(path, reason)` for each of `results` (a child's, ids without their path) it does not wait for."""
        child = self.running[workflow_id]
        prefix = child.tool_call_id + PATH_SEPARATOR
        report = self._pending.get(workflow_id)
        waiting = report.pending if report is not None else None
        approvals = {call.tool_call_id for call in waiting.approvals} if waiting is not None else set[str]()
        calls = {call.tool_call_id for call in waiting.calls} if waiting is not None else set[str]()
        refused: list[tuple[str, str]] = []
        for label, expected in (('approvals', approvals), ('calls', calls)):
            entries: Mapping[str, object] = getattr(results, label)
            for call_id in entries:
                if call_id not in expected:
                    refused.append(
                        (prefix + call_id, f'The run of {child.agent!r} started by tool call {child.tool_call_id!r} '
                         f'is not waiting for {label} of {call_id!r}.')
                    )  # fmt: skip
        return refused

    def open_approval(self, workflow_id: str, call_id: str) -> PendingApproval | None:
        """What a child said of its approval `call_id` under a rule (who approved it so far), if it did."""
        report = self._pending.get(workflow_id)
        if report is None:
            return None
        return next((a for a in report.open_approvals if a.tool_call_id == call_id), None)

    def call(self, workflow_id: str, call_id: str) -> ToolCallPart | None:
        """The child's pending call `call_id`, as it reported it."""
        report = self._pending.get(workflow_id)
        if report is None or report.pending is None:
            return None
        return next((c for c in [*report.pending.approvals, *report.pending.calls] if c.tool_call_id == call_id), None)


def only_approvals(requests: DeferredToolRequests, approvals: list[ToolCallPart]) -> DeferredToolRequests | None:
    """`requests` with only `approvals` of its approvals (and the metadata of what is left); `None` if nothing is."""
    if not approvals and not requests.calls:
        return None
    ids = {call.tool_call_id for call in [*approvals, *requests.calls]}
    metadata = {k: v for k, v in requests.metadata.items() if k in ids}
    return DeferredToolRequests(calls=requests.calls, approvals=approvals, metadata=metadata)


def _under(call: ToolCallPart, prefix: str) -> ToolCallPart:
    return replace(call, tool_call_id=prefix + call.tool_call_id)
