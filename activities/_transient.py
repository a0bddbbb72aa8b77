"""Which failures of a model-request activity another attempt may get past, and what the others become.

A model request's activity retries without a limit (`DEFAULT_MODEL_ACTIVITY`), which is right for a provider that is
busy or a network that drops a connection, and wrong for a bug: a history processor or a model-request hook that
raises `AttributeError` raises it on every attempt, and the run would retry for ever while saying nothing. So an
exception from the activity's code is split in two:

- **Transient**: I/O that may succeed on another attempt or another worker, kept on the activity's retry policy.
  That is a provider's HTTP error with a retryable status (`ModelHTTPError` 408/409/429/5xx, honouring
  `retry-after`), any other `ModelAPIError` (the provider's connection failed, or its answer was cut off or
  malformed), an `OSError` (`ConnectionError`, `TimeoutError`, which `asyncio.TimeoutError` is, a socket or TLS
  error, a file not there yet), a transport error of the HTTP client (`httpx2.TransportError`: connect, read and
  write errors and timeouts, a dropped connection), an `httpx2.HTTPStatusError` with a retryable status (a hook's
  own `raise_for_status()`), `ConcurrencyLimitExceeded` (a slot may free up), a `MissingOnThisWorker` (what this
  worker lacks another may have: `workflows.DecryptionError`, for a run's payload encrypted with a key it does not
  hold), and an exception group (e.g. `FallbackExceptionGroup`) holding at least one of these.
- **Anything else** from user code (history processors, model-request hooks on the activity side, a
  `FunctionModel`'s function) is taken for a bug, the same on every attempt: it fails the run at once with a
  non-retryable `ApplicationError` whose type is the exception's class name and whose message is its message, so
  the run fails as the in-process run raises (`AttributeError: 'NoneType' object has no attribute 'name'`). An
  `AgentRunError` (`UnexpectedModelBehavior`, `UsageLimitExceeded`) fails the run in-process too.

Errors that already say what they are keep their course: run-loop signals and `UserError` (see `activities._errors`),
and Temporal's own (an `ApplicationError` raised on purpose keeps the retry posture it was given, so code that knows
better can ask for retries with `ApplicationError(..., non_retryable=False)`; a cancellation stays one). A hook whose
own I/O fails with another library's exception, and that wants it retried, raises a `ConnectionError` from it.

A worker built with `workflow_side_errors='retry'` keeps Temporal's retry-until-fixed for user code here too
(`retry_user_errors`): the exception propagates as it is, and the activity is retried per its policy until a worker
with fixed code answers.
"""

from __future__ import annotations

import httpx2
from temporalio.exceptions import ApplicationError, TemporalError, is_cancelled_exception

from agent.exceptions import AgentRunError, ConcurrencyLimitExceeded, ModelAPIError, ModelHTTPError, UserError

from ._errors import as_application_error, to_application_error
from ._fitted_failures import FittedFailure, fitted_failure

__all__ = ('MissingOnThisWorker', 'is_transient', 'model_request_error')

_RETRYABLE_STATUSES = frozenset({408, 409, 429})


class MissingOnThisWorker(Exception):
    """Something this worker lacks and another may have (an encryption key): retried, never taken for a bug."""


def is_transient(error: BaseException) -> bool:
    """Whether another attempt may get past `error`: I/O, not a bug (see the module docs)."""
    if isinstance(error, ModelHTTPError):
        return error.retryable
    if isinstance(error, httpx2.HTTPStatusError):
        status = error.response.status_code
        return status in _RETRYABLE_STATUSES or status >= 500
    if isinstance(error, BaseExceptionGroup):
        return any(is_transient(inner) for inner in error.exceptions)
    return isinstance(
        error, ModelAPIError | OSError | httpx2.TransportError | ConcurrencyLimitExceeded | MissingOnThisWorker
    )


def model_request_error(error: Exception, *, retry_user_errors: bool = False) -> ApplicationError | None:
    """The `ApplicationError` a model-request activity raises for `error`, or `None` to let it propagate as is.

    Like `to_application_error`, with user code's bugs failing the run at once instead of retrying for ever (with
    `retry_user_errors`, only `AgentRunError`s do; the rest propagate, retried until fixed).
    """
    if is_cancelled_exception(error) or isinstance(error, UserError | TemporalError) or is_transient(error):
        return to_application_error(error)
    if retry_user_errors and not isinstance(error, AgentRunError):
        return to_application_error(error)
    converted = as_application_error(error)
    if converted is None:
        kind = type(error).__name__
        converted = ApplicationError(str(error), type=kind, non_retryable=True)
    converted.__cause__ = error
    return FittedFailure(fitted_failure(converted)[0])
