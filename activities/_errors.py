"""How run-loop signals and model errors cross the activity boundary, and back.

A tool's `ModelRetry`, `ApprovalRequired` or `CallDeferred` is not a failure: it travels as a
non-retryable `ApplicationError` whose `type` names it, and the workflow turns it back into the same
exception so the agent graph handles it exactly as in-process. Provider HTTP errors keep their retry
posture: 408/409/429/5xx are retried by Temporal (honouring `retry-after`), other statuses fail at once.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from temporalio.exceptions import ActivityError, ApplicationError

from agent.exceptions import ApprovalRequired, CallDeferred, ModelHTTPError, ModelRetry, UserError

__all__ = ('from_activity_error', 'to_application_error')

_SIGNALS = {'ModelRetry', 'ApprovalRequired', 'CallDeferred'}


def to_application_error(error: Exception) -> ApplicationError | None:
    """The `ApplicationError` to raise from an activity for `error`, or `None` to let it propagate as is."""
    if isinstance(error, ModelRetry):
        return ApplicationError(error.message, error.message, type='ModelRetry', non_retryable=True)
    if isinstance(error, ApprovalRequired):
        return ApplicationError('approval required', error.metadata, type='ApprovalRequired', non_retryable=True)
    if isinstance(error, CallDeferred):
        return ApplicationError('call deferred', error.metadata, type='CallDeferred', non_retryable=True)
    if isinstance(error, UserError):
        return ApplicationError(error.message, type='UserError', non_retryable=True)
    if isinstance(error, ModelHTTPError):
        delay = timedelta(seconds=error.retry_after) if error.retry_after else None
        return ApplicationError(
            str(error),
            error.status_code,
            type='ModelHTTPError',
            non_retryable=not error.retryable,
            next_retry_delay=delay,
        )
    return None


def from_activity_error(error: ActivityError) -> Exception | None:
    """The run-loop signal an activity failure stands for, or `None` if it is a real failure."""
    cause = error.cause
    if not isinstance(cause, ApplicationError) or cause.type not in _SIGNALS:
        return None
    detail: Any = cause.details[0] if cause.details else None
    if cause.type == 'ModelRetry':
        return ModelRetry(str(detail))
    if cause.type == 'ApprovalRequired':
        return ApprovalRequired(metadata=detail)
    return CallDeferred(metadata=detail)
