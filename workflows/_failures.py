"""The failure a run ends with: what went wrong in its first line, fitted to Temporal's limits, with no key in it.

For an exception that escapes the agent graph, `as_workflow_failure` gives:

- for an activity that failed for good (a model request or a tool): that activity failure, with its activity type,
  id, retry state and causes, but with its generic "Activity task failed" replaced by the cause's type and message
  (`UserError: Unknown model provider 'acme' in 'acme:gpt'...`), so the run says at once what to fix;
- for a `UserError` or `AgentRunError` (deterministic: the workflow task would fail the same way on every retry) and
  for I/O tried by workflow-side code: a non-retryable `ApplicationError` named after it;
- for any other Temporal failure: that failure, fitted;
- for any other exception, raised by user code that runs in the workflow (instructions, system prompt functions,
  workflow-side hooks, output validators, history processors): a non-retryable `ApplicationError` named after it,
  so the run fails as the in-process run raises (`AttributeError: 'NoneType' object has no attribute 'name'`);
  with `retry_user_errors`, `None`, so Temporal retries the workflow task until a fixed worker resumes the run;
- `None` for a cancellation (it must stay one) and for Temporal's own errors (a nondeterminism error fails the
  workflow task, which a worker with the right code replays), and for what is not an `Exception` (the SDK's
  control flow, such as a run being evicted from the cache).

Every failure is fitted as the activities' are (`activities._fitted_failures`): keys redacted, text cut with the
first failure kept, so a huge message never turns into Temporal's "Failure exceeds size limit".
"""

from __future__ import annotations

from pathlib import Path

import temporalio
from temporalio.exceptions import (
    ActivityError,
    ApplicationError,
    FailureError,
    TemporalError,
    is_cancelled_exception,
)
from temporalio.worker.workflow_sandbox import RestrictedWorkflowAccessError

from activities._fitted_failures import FittedFailure, failure_of, fit, fitted_failure, headline
from agent.exceptions import AgentRunError, UserError

from ._data_converter import PayloadDecodeError

__all__ = ('as_workflow_failure',)

_SDK_FOLDER = str(Path(temporalio.__file__).parent)


def as_workflow_failure(exc: BaseException, *, retry_user_errors: bool = False) -> ApplicationError | None:
    """The failure to end the run with for `exc`, or `None` to let it propagate as is (see the module docs)."""
    if is_cancelled_exception(exc):
        return None
    if isinstance(exc, ActivityError):
        return _activity_failure(exc)
    if isinstance(exc, UserError | AgentRunError) or (_is_user_error(exc) and not retry_user_errors):
        kind = type(exc).__name__
        error = ApplicationError(headline(kind, str(exc)), type=kind, non_retryable=True)
    elif isinstance(exc, RestrictedWorkflowAccessError):
        # The sandbox's own advice (pass the import through) is about workflow modules, not an agent's functions;
        # its first sentence and the function that tried are what the person needs, so no cause is chained.
        tried = str(exc).split('. ')[0]
        error = ApplicationError(
            f'Workflow-side code tried to do I/O{_raised_in(exc)}: {tried}. Hooks, instructions and prepare '
            'functions run in the workflow and must be deterministic. Do I/O in tools, or in model-request or '
            'tool-execute hooks (which run in activities; a capability that moved one with '
            "hook_sides={...: 'workflow'} must move it back).",
            type='WorkflowSideIO',
            non_retryable=True,
        )
        return FittedFailure(fitted_failure(error)[0])
    elif isinstance(exc, FailureError):
        failure, changed = fitted_failure(exc)
        return FittedFailure(failure) if changed else None
    else:
        return None
    error.__cause__ = exc
    return FittedFailure(fitted_failure(error)[0])


def _is_user_error(exc: BaseException) -> bool:
    """Whether `exc` came from user code rather than from Temporal or the SDK's control flow.

    Temporal's own errors (nondeterminism, a read-only context) keep failing the workflow task; a failure
    (`FailureError`) is handled as one; an undecodable payload fails the run through `failure_exception_types`.
    """
    return isinstance(exc, Exception) and not isinstance(exc, TemporalError | PayloadDecodeError)


def _raised_in(exc: BaseException) -> str:
    """` in <function> (<file>:<line>)`: the innermost frame of `exc` outside the SDK, or nothing."""
    # The traceback's own frames: `traceback.extract_tb` would read source files, I/O the sandbox refuses.
    where = ''
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if not code.co_filename.startswith(_SDK_FOLDER):
            where = f' in {code.co_name} ({Path(code.co_filename).name}:{tb.tb_lineno})'
        tb = tb.tb_next
    return where


def _activity_failure(exc: ActivityError) -> ApplicationError:
    failure = failure_of(exc)
    cause = exc.cause
    if cause is not None:
        kind = cause.type if isinstance(cause, ApplicationError) and cause.type else type(cause).__name__
        failure.message = headline(kind, cause.message if isinstance(cause, FailureError) else str(cause))
    fit(failure)
    return FittedFailure(failure)
