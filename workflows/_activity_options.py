"""Activity options for an agent's model requests and tool executions, set in code and checked at start-up."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from temporalio.common import RetryPolicy

from agent.exceptions import UserError

__all__ = ('DEFAULT_MODEL_ACTIVITY', 'DEFAULT_TOOL_ACTIVITY', 'ActivityOptions')


@dataclass(frozen=True)
class ActivityOptions:
    """How the activity of a model request or tool execution is scheduled."""

    start_to_close_timeout: timedelta = timedelta(minutes=5)
    """Longest one attempt may take."""
    heartbeat_timeout: timedelta | None = timedelta(seconds=2)
    """A worker that stops heartbeating for this long is presumed dead and the attempt is retried elsewhere
    (activities beat four times per timeout while the call runs, so a late or lost beat is not a death)."""
    retry_policy: RetryPolicy | None = None
    """Retries; `None` uses Temporal's default (retry with backoff, without limit)."""
    local: bool = False
    """Run as a local activity: on the worker running the workflow, inside its workflow task, with only the result
    recorded in the history. A short step (a fast tool, a quick model) then costs no round trip through the
    server: a whole tool loop can complete in one workflow task. The trade-offs: a local activity sends no
    heartbeats (`heartbeat_timeout` is not used), so a worker that dies mid-call is noticed when the workflow task
    times out (10 seconds by default) and the call then runs again from its start on another worker; its input is
    not in the history; and a call longer than the workflow task timeout keeps that task open (the worker extends
    it) instead of letting other work for the run through. Suited to steps that take well under a few seconds and
    are safe to run again."""

    def check(self, what: str) -> None:
        """Raise `UserError` naming `what` if the options cannot work."""
        if self.start_to_close_timeout <= timedelta(0):
            raise UserError(f'{what}: start_to_close_timeout must be positive')
        if self.heartbeat_timeout is not None:
            if self.heartbeat_timeout < timedelta(seconds=1):
                raise UserError(
                    f'{what}: heartbeat_timeout must be at least 1 second (a shorter one mistakes a busy worker '
                    'for a dead one)'
                )
            if self.heartbeat_timeout > self.start_to_close_timeout:
                raise UserError(f'{what}: heartbeat_timeout cannot exceed start_to_close_timeout')
        policy = self.retry_policy
        if policy is not None and policy.maximum_attempts < 0:
            raise UserError(f'{what}: retry_policy.maximum_attempts cannot be negative')


DEFAULT_MODEL_ACTIVITY = ActivityOptions()
"""Model requests: retried by Temporal (provider errors say whether they are retryable)."""

DEFAULT_TOOL_ACTIVITY = ActivityOptions(
    retry_policy=RetryPolicy(initial_interval=timedelta(milliseconds=200), maximum_attempts=3)
)
"""Tool executions: three attempts, so a failing tool ends the run instead of retrying forever; the first retry
comes quickly, so a tool interrupted by a dead worker resumes on a live one within moments."""
