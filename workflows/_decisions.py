"""Decision records: who decided each deferred tool call of a durable run, when, what, and on which arguments.

`Ballots` holds the votes on the approvals a run waits for, under the agent's `ApprovalRule`s: it refuses an answer
from a caller a rule does not allow (so nothing is recorded for it), counts distinct approvers of the same
arguments until a rule's `required_approvals` is reached, and lets one denial decide. `decision_records` turns the
answers a step applied (by the ports' wait, or by a capability such as `RequestInput`) into `DecisionRecord`s.

Every time in a record is the workflow's clock when the answer was taken, so a replay writes the same records.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from temporalio import workflow

from agent._deferred import DeferredToolRequests, DeferredToolResults, ToolApproved, ToolDenied
from agent._parts import ToolCallPart
from agent.exceptions import ModelRetry, ToolFailed

from ._approval_rules import ApprovalRule

__all__ = (
    'Ballots',
    'DecisionRecord',
    'PendingApproval',
    'Vote',
    'args_digest',
    'decision_records',
    'token_answer_refusal',
)

Decision = Literal['approve', 'deny', 'override', 'result']
"""What was decided: an approval ran the call with its arguments (`approve`) or with others (`override`), a denial
did not run it (`deny`), or an external call got its result (`result`)."""


@dataclass
class Vote:
    """One caller's answer to an approval that needs several."""

    by: str | None
    """Who answered (`None`: the answer named no one)."""
    at: datetime
    """When the run took it (UTC, the workflow's clock)."""
    decision: Literal['approve', 'deny', 'override']
    """What they answered."""


@dataclass
class DecisionRecord:
    """How one deferred tool call was decided: in the `status` query, the run's result, `agents status`, the pages."""

    tool_call_id: str
    """The call."""
    tool_name: str
    """Its tool."""
    decision: Decision
    """What was decided (see `Decision`)."""
    at: datetime
    """When the decision was made (UTC, the workflow's clock): the last vote it needed."""
    by: list[str] = field(default_factory=list[str])
    """Who made it: the approvers it needed, or the one who denied (empty when no one did: an expired request, the
    run's timeout, a capability's own rule)."""
    reason: str | None = None
    """Why, where there is one: a denial's message, an external call's failure."""
    args_digest: str = ''
    """`sha256:` and the hex digest of the arguments the decision was about (for `override`, the arguments it ran
    with), as canonical JSON: sorted keys, no spaces, UTF-8."""
    votes: list[Vote] = field(default_factory=list[Vote])
    """Every answer counted, in order, when the call needed more than one or a denial followed approvals."""


@dataclass
class PendingApproval:
    """An approval under an `ApprovalRule` that is still open, as the `status` query lists it."""

    tool_call_id: str
    """The call."""
    tool_name: str
    """Its tool."""
    required: int
    """How many distinct approvers it needs."""
    approved_by: list[str] = field(default_factory=list[str])
    """Who approved it so far."""
    expires: datetime | None = None
    """When the request expires (UTC), if its rule says."""


def args_digest(args: Any) -> str:
    """`sha256:<hex>` of `args` as canonical JSON (sorted keys, no spaces, UTF-8; what JSON cannot hold as text)."""
    canonical = json.dumps(args, sort_keys=True, separators=(',', ':'), ensure_ascii=False, default=str)
    return 'sha256:' + hashlib.sha256(canonical.encode()).hexdigest()


def _vote_kind(value: Any) -> Literal['approve', 'deny', 'override']:
    if value is False or isinstance(value, ToolDenied):
        return 'deny'
    if isinstance(value, ToolApproved) and value.override_args is not None:
        return 'override'
    return 'approve'


def _voted_args(call: ToolCallPart, value: Any) -> dict[str, Any]:
    if isinstance(value, ToolApproved) and value.override_args is not None:
        return value.override_args
    return call.args_as_dict()


class Ballots:
    """The votes on the approvals one wait of the run holds, under the agent's rules (see the module docstring)."""

    def __init__(
        self,
        rules: Mapping[str, ApprovalRule],
        roles: Mapping[str, Collection[str]],
        requests: DeferredToolRequests,
    ) -> None:
        self.rules = rules
        self.roles = roles
        self.since = workflow.now()
        """When the calls became pending: expiries count from here."""
        self.calls = {call.tool_call_id: call for call in requests.approvals}
        self.votes: dict[str, list[Vote]] = {}
        self._digests: dict[str, str] = {}

    def rule(self, call_id: str) -> ApprovalRule | None:
        """The rule of the pending approval `call_id`, if its tool has one."""
        call = self.calls.get(call_id)
        return self.rules.get(call.tool_name) if call is not None else None

    def refusal(self, call_id: str, value: Any, caller: str | None) -> str | None:
        """Why the approval answer `value` from `caller` cannot count, or `None` if it can."""
        rule = self.rule(call_id)
        if rule is None:
            return None
        call = self.calls[call_id]
        reason = rule.allows(caller, call, self.roles)
        if reason is not None or _vote_kind(value) == 'deny':
            return reason
        earlier = self.votes.get(call_id, [])
        if any(vote.by == caller for vote in earlier):
            more = rule.required_approvals - len(earlier)
            return (f'{caller!r} already approved tool call {call_id!r}; it needs {more} more approval(s) from '
                    'someone else.')  # fmt: skip
        digest = self._digests.get(call_id)
        if digest is not None and digest != args_digest(_voted_args(call, value)):
            return (f'{caller!r} approves other arguments for tool call {call_id!r} than {earlier[0].by!r} did; '
                    'every approval of a call must approve the same arguments.')  # fmt: skip
        return None

    def cast(self, call_id: str, value: Any, caller: str | None) -> bool:
        """Count an answer (already checked by `refusal`); `True` once it decides the call."""
        rule = self.rule(call_id)
        if rule is None:
            return True
        kind = _vote_kind(value)
        votes = self.votes.setdefault(call_id, [])
        votes.append(Vote(caller, workflow.now(), kind))
        if kind == 'deny':
            return True
        self._digests.setdefault(call_id, args_digest(_voted_args(self.calls[call_id], value)))
        return len(votes) >= rule.required_approvals

    def open(self, call_ids: Collection[str]) -> list[PendingApproval]:
        """The approvals among `call_ids` under a rule, with who approved them so far."""
        shown: list[PendingApproval] = []
        for call_id in call_ids:
            rule = self.rule(call_id)
            if rule is None:
                continue
            expiry = rule.expires_after
            shown.append(
                PendingApproval(
                    call_id,
                    self.calls[call_id].tool_name,
                    rule.required_approvals,
                    [vote.by for vote in self.votes.get(call_id, []) if vote.by is not None],
                    self.since + expiry if expiry is not None else None,
                )
            )
        return shown

    def may_answer(self, call_id: str, caller: str) -> bool:
        """Whether `caller` may answer the approval `call_id` now (allowed, and not one of its approvers yet)."""
        return self.refusal(call_id, True, caller) is None


def decision_records(
    requests: DeferredToolRequests,
    results: DeferredToolResults,
    votes: Mapping[str, list[Vote]],
    credited: Callable[[str], str | None],
) -> list[DecisionRecord]:
    """The records of the calls of `requests` that `results` answers, in call order.

    `votes` are the counted answers of calls under a rule; `credited` says who answered any other call (the
    results' `answered_by`, else the caller the answer came with).
    """
    now = workflow.now()
    records: list[DecisionRecord] = []
    for call in requests.approvals:
        if call.tool_call_id not in results.approvals:
            continue
        value = results.approvals[call.tool_call_id]
        kind = _vote_kind(value)
        counted = votes.get(call.tool_call_id, [])
        if counted:
            deciding = [counted[-1]] if kind == 'deny' else counted
            by = [vote.by for vote in deciding if vote.by is not None]
            at = counted[-1].at
        else:
            who = credited(call.tool_call_id)
            by, at = ([who] if who is not None else []), now
        records.append(
            DecisionRecord(
                call.tool_call_id,
                call.tool_name,
                kind,
                at,
                by,
                reason=value.message if isinstance(value, ToolDenied) else None,
                args_digest=args_digest(_voted_args(call, value)),
                votes=counted if len(counted) > 1 else [],
            )
        )
    for call in requests.calls:
        if call.tool_call_id not in results.calls:
            continue
        value = results.calls[call.tool_call_id]
        who = credited(call.tool_call_id)
        failure = value.message if isinstance(value, ModelRetry | ToolFailed) else None
        records.append(
            DecisionRecord(
                call.tool_call_id, call.tool_name, 'result', now, [who] if who is not None else [], failure,
                args_digest(call.args_as_dict()),
            )
        )  # fmt: skip
    records.sort(key=lambda record: _order(requests, record.tool_call_id))
    return records


def _order(requests: DeferredToolRequests, call_id: str) -> int:
    ids = requests.tool_call_ids
    return ids.index(call_id) if call_id in ids else len(ids)


def token_answer_refusal(
    payload: Any,
    caller: str | None,
    calls: Mapping[str, ToolCallPart],
    rules: Mapping[str, ApprovalRule],
    roles: Mapping[str, Collection[str]],
) -> str | None:
    """Why the approvals a resume token's payload gives may not come from `caller`, or `None` if they may.

    A token's payload (`RequestInput`: the JSON form of `DeferredToolResults`) answers calls of the run's latest
    response (`calls`, by id); each approval is given by its `answered_by` entry, else by `caller`, and must be
    allowed by its tool's rule. A token carries one answer, so it cannot decide a call that needs several approvers.
    """
    if not isinstance(payload, dict):
        return None
    approvals: Any = payload.get('approvals')
    answered_by: Any = payload.get('answered_by') or {}
    if not isinstance(approvals, dict) or not isinstance(answered_by, dict):
        return None
    for call_id in approvals:
        call = calls.get(str(call_id))
        rule = rules.get(call.tool_name) if call is not None else None
        if call is None or rule is None:
            continue
        if rule.required_approvals > 1:
            return (
                f'Tool call {call.tool_call_id!r} needs {rule.required_approvals} distinct approvers, and a resume '
                'token carries one answer: leave the approvals of this tool to the run itself (not RequestInput), '
                'where each approver answers through resolve_deferred_tools.'
            )
        who = answered_by.get(call_id, caller)
        reason = rule.allows(who if isinstance(who, str) else None, call, roles)
        if reason is not None:
            return reason
    return None
