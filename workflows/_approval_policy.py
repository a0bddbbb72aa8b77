"""Approval policies: how long a durable run waits for deferred tool results, and what happens then."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

__all__ = ('ApprovalPolicy', 'TimeoutOutcome')

TimeoutOutcome = Literal['deny', 'fail', 'end']
"""On timeout: deny what is pending (the model is told), fail the run, or end it returning the requests."""


@dataclass
class ApprovalPolicy:
    """How a durable run waits for approvals and external results.

    Waiting holds no worker slot and no memory: the workflow sleeps on a durable timer until results
    arrive or the timeout fires.
    """

    timeout_seconds: float | None = None
    """How long to wait for all pending calls to be resolved; `None` waits forever."""
    on_timeout: TimeoutOutcome = 'deny'
    """What happens when the timeout fires."""
    deny_message: str = 'No decision was made in time, so the tool call was not run.'
    """The message the model gets for each call denied on timeout."""
    remind_every_seconds: float | None = None
    """Call the agent's notifier again at this interval while calls are pending."""

    def __post_init__(self) -> None:
        for name in ('timeout_seconds', 'remind_every_seconds'):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f'ApprovalPolicy.{name} must be positive, got {value}')
        if self.on_timeout not in ('deny', 'fail', 'end'):
            raise ValueError(f"ApprovalPolicy.on_timeout must be 'deny', 'fail' or 'end', got {self.on_timeout!r}")

    @property
    def timeout(self) -> timedelta | None:
        """`timeout_seconds` as a timedelta."""
        return timedelta(seconds=self.timeout_seconds) if self.timeout_seconds is not None else None

    @property
    def remind_every(self) -> timedelta | None:
        """`remind_every_seconds` as a timedelta."""
        return timedelta(seconds=self.remind_every_seconds) if self.remind_every_seconds is not None else None
