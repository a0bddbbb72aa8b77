"""Who may approve a tool's calls, how many must, and for how long they may: `ApprovalRule`, per tool.

A durable agent names its rules by tool (`DurableAgent(approval_rules={'delete_file': ApprovalRule(...)})`). The
rules are workflow code: they are read, and a callable `approvers` runs, inside the workflow, so they must be
deterministic (no I/O, clock or randomness) and change only as workflow code does (see the docs on deploying).

An identity is whatever the answer names as its caller: the chat app's signed-in user, the `agents` command's
`--as`, a Python caller's `caller=`, the Temporal client's identity. Temporal's own access control decides who may
send anything to a run at all; the rules decide which of those identities count for which tool.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from agent._parts import ToolCallPart

__all__ = ('ROLE_PREFIX', 'ApprovalRule', 'ExpiryOutcome')

ROLE_PREFIX = 'role:'
"""An `approvers` entry `'role:NAME'` stands for every identity `DurableAgent.roles` gives role NAME."""

ExpiryOutcome = Literal['deny', 'escalate']
"""When a call's approval request expires: deny the call (the model is told), or escalate to the run's
`ApprovalPolicy.on_timeout` (deny what is pending, fail the run, or end it returning the requests)."""


@dataclass(frozen=True)
class ApprovalRule:
    """How a tool's calls are approved in a durable run: by whom, by how many, and until when.

    An answer from a caller the rule does not allow is refused at the door (the `resolve_deferred_tools` update's
    validator; a signal's entry is listed under `status().rejected`), and nothing is recorded for it. A call that
    needs several approvals runs once that many distinct allowed callers approved the same arguments; a denial by
    any allowed caller denies it at once.
    """

    approvers: Collection[str] | Callable[[str, ToolCallPart], bool] | None = None
    """Who may answer the tool's approvals: a set of identities (`'role:NAME'` entries stand for the identities of
    `DurableAgent.roles[NAME]`), or a function of the caller's identity and the call, run in the workflow. `None`:
    anyone (an answer naming no caller included, while one approval is enough)."""
    required_approvals: int = 1
    """How many distinct allowed callers must approve a call before it runs (the same caller twice counts once)."""
    expires_after_seconds: float | None = None
    """How long a call's approval request stays valid from the moment it is pending; `None`: as long as the run
    waits (`ApprovalPolicy.timeout_seconds`)."""
    on_expiry: ExpiryOutcome = 'deny'
    """What an expired request comes to (see `ExpiryOutcome`)."""
    expiry_message: str = 'The approval request expired before it was approved, so the tool call was not run.'
    """What the model is told for a call denied on expiry."""

    def __post_init__(self) -> None:
        if isinstance(self.required_approvals, bool) or not isinstance(self.required_approvals, int):
            raise TypeError(f'ApprovalRule.required_approvals must be a whole number, not {self.required_approvals!r}')
        if self.required_approvals < 1:
            raise ValueError(f'ApprovalRule.required_approvals must be at least 1, got {self.required_approvals}')
        if self.expires_after_seconds is not None and self.expires_after_seconds <= 0:
            raise ValueError(f'ApprovalRule.expires_after_seconds must be positive, got {self.expires_after_seconds}')
        if self.on_expiry not in ('deny', 'escalate'):
            raise ValueError(f"ApprovalRule.on_expiry must be 'deny' or 'escalate', got {self.on_expiry!r}")
        if isinstance(self.approvers, str):
            raise TypeError(
                f'ApprovalRule.approvers is a set of identities, not one string: write {{{self.approvers!r}}}'
            )

    @property
    def expires_after(self) -> timedelta | None:
        """`expires_after_seconds` as a timedelta."""
        return timedelta(seconds=self.expires_after_seconds) if self.expires_after_seconds is not None else None

    def check(self, tool_name: str, roles: Mapping[str, Collection[str]]) -> None:
        """Check the rule against its tool when the agent is registered.

        Raises:
            ValueError: a role the agent does not define, or fewer allowed identities than `required_approvals`.
        """
        approvers = self.approvers
        if approvers is None or callable(approvers):
            return
        named: set[str] = set()
        for entry in approvers:
            if entry.startswith(ROLE_PREFIX):
                role = entry.removeprefix(ROLE_PREFIX)
                if role not in roles:
                    known = ', '.join(sorted(roles)) or 'none'
                    raise ValueError(f'approval rule of {tool_name!r} names role {role!r}, which roles= does not '
                                     f'define (defined: {known})')  # fmt: skip
                named.update(roles[role])
            else:
                named.add(entry)
        if len(named) < self.required_approvals:
            raise ValueError(
                f'approval rule of {tool_name!r} needs {self.required_approvals} approvals but allows only '
                f'{len(named)} approver(s): {", ".join(sorted(named)) or "none"}'
            )

    def allows(self, caller: str | None, call: ToolCallPart, roles: Mapping[str, Collection[str]]) -> str | None:
        """`None` if `caller` may answer `call` (`roles` as `DurableAgent.roles`), else why not, in one sentence."""
        approvers = self.approvers
        if caller is None:
            if approvers is None and self.required_approvals == 1:
                return None
            return (f'Approvals of {call.tool_name!r} must name who gives them (the caller), so that the rule on '
                    'who may approve it can be checked.')  # fmt: skip
        if approvers is None:
            return None
        if callable(approvers):
            allowed = approvers(caller, call)
        else:
            allowed = caller in approvers or any(
                entry.startswith(ROLE_PREFIX) and caller in roles.get(entry.removeprefix(ROLE_PREFIX), ())
                for entry in approvers
            )
        return None if allowed else f'{caller!r} may not approve calls of {call.tool_name!r}.'
