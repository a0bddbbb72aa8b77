"""How run-loop signals and model errors cross the activity boundary, and back.

A tool's `ModelRetry`, `ApprovalRequired` or `CallDeferred`, or a model-request hook's `ModelRetry`, is not a
failure: it travels as a non-retryable `ApplicationError` whose `type` names it, and the workflow turns it back into
the same exception so the agent graph handles it exactly as in-process. Provider HTTP errors keep their retry
posture: 408/409/429/5xx are retried by Temporal (honouring `retry-after`), other statuses fail at once.
A `UserError` (an unknown model, a missing key, an agent without a model) is the same on every attempt, so it
fails at once too. A pydantic `ValidationError` (from a tool or a tool-execute hook) fails at once with its error
details, so the workflow can rebuild it (`validation_error_from_activity_error`) and the model gets the same retry
prompt as in-process. Every failure leaves the activity fitted for history (`activities._fitted_failures`).
Other exceptions of a model request's activity are sorted into transient I/O, retried, and user code's bugs, which
fail the run at once (`activities._transient`).
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any, LiteralString, cast

import pydantic
import pydantic_core
from pydantic_core import InitErrorDetails
from temporalio.exceptions import ActivityError, ApplicationError, CancelledError, is_cancelled_exception

from agent._parts import ModelResponse
from agent.capabilities._dispatch import RejectedResponse
from agent.exceptions import ApprovalRequired, CallDeferred, ModelHTTPError, ModelRetry, UserError

from ._fitted_failures import MESSAGE_LIMIT, FittedFailure, cut, fitted_failure

__all__ = (
    'as_application_error',
    'configuration_error',
    'from_activity_error',
    'to_application_error',
    'validation_error_from_activity_error',
)

_VALIDATION_ERROR = 'ValidationError'  # with its title and error details, unlike the SDK's own conversion
_SIGNALS = {'ModelRetry', 'RejectedResponse', 'ApprovalRequired', 'CallDeferred'}
_RESPONSE: pydantic.TypeAdapter[ModelResponse] = pydantic.TypeAdapter(ModelResponse)


def to_application_error(error: Exception) -> ApplicationError | None:
    """The `ApplicationError` to raise from an activity for `error`, or `None` to let it propagate as is.

    What it returns is fitted for history, its causes included (keys redacted, text cut to fit: see
    `activities._fitted_failures`); any other error is returned fitted too when the SDK would write it too large or
    with a key in it, keeping its type and retry posture.
    """
    if is_cancelled_exception(error):
        return None  # a cancellation must reach the SDK as itself
    if isinstance(error, UserError):
        return configuration_error(error)
    converted = as_application_error(error)
    if converted is None:
        failure, changed = fitted_failure(error)
        return FittedFailure(failure) if changed else None
    converted.__cause__ = error
    return FittedFailure(fitted_failure(converted)[0])


def configuration_error(error: UserError) -> ApplicationError:
    """`error`, a mistake in how the agent or the worker is set up, as a failure no retry will repeat."""
    converted = ApplicationError(error.message, type='UserError', non_retryable=True)
    converted.__cause__ = error
    return FittedFailure(fitted_failure(converted)[0])


def as_application_error(error: Exception) -> ApplicationError | None:
    """The `ApplicationError` of a run-loop signal, a `ValidationError` or a provider's HTTP error, else `None`.

    It is not fitted for history yet: `to_application_error` does that.
    """
    if isinstance(error, RejectedResponse):
        # A model-request hook rejected the response: the response travels too, as it stays in the run's history.
        message = cut(error.message, MESSAGE_LIMIT)
        response = _RESPONSE.dump_python(error.response, mode='json')
        return ApplicationError(message, message, response, type='RejectedResponse', non_retryable=True)
    if isinstance(error, ModelRetry):
        # The retry prompt travels in the details, which are left out whole if too large: cut it to fit instead.
        message = cut(error.message, MESSAGE_LIMIT)
        return ApplicationError(message, message, type='ModelRetry', non_retryable=True)
    if isinstance(error, pydantic.ValidationError):
        # What the retry prompt shows (the error details, as in-process) must survive the data converter: inputs
        # that are not JSON travel as their repr.
        errors = pydantic_core.to_jsonable_python(error.errors(include_url=False, include_context=False), fallback=repr)
        return ApplicationError(str(error), error.title, errors, type=_VALIDATION_ERROR, non_retryable=True)
    if isinstance(error, ApprovalRequired):
        return ApplicationError('approval required', error.metadata, type='ApprovalRequired', non_retryable=True)
    if isinstance(error, CallDeferred):
        return ApplicationError('call deferred', error.metadata, type='CallDeferred', non_retryable=True)
    if isinstance(error, ModelHTTPError):
        # 401/403 (a wrong key, no access) are not retryable: `retryable` admits only 408/409/429/5xx.
        delay = timedelta(seconds=error.retry_after) if error.retry_after else None
        return ApplicationError(
            str(error),  # the provider's body, redacted by the fitting with the rest of the failure
            error.status_code,
            type='ModelHTTPError',
            non_retryable=not error.retryable,
            next_retry_delay=delay,
        )
    return None


def from_activity_error(error: ActivityError) -> BaseException | None:
    """The run-loop signal an activity failure stands for, or `None` if it is a real failure."""
    cause = error.cause
    if isinstance(cause, CancelledError):
        # Cancelled because the workflow task awaiting it was (a tool's `timeout=` deadline, or the run itself):
        # asyncio's own error lets `asyncio.timeout` tell its deadline expired, so the model gets the same retry
        # prompt as in-process instead of the run failing with "Activity cancelled".
        task = asyncio.current_task()
        return asyncio.CancelledError() if task is not None and task.cancelling() else None
    if not isinstance(cause, ApplicationError) or cause.type not in _SIGNALS:
        return None
    detail: Any = cause.details[0] if cause.details else None
    if cause.type == 'ModelRetry':
        return ModelRetry(str(detail))
    if cause.type == 'RejectedResponse':
        return RejectedResponse(str(detail), _RESPONSE.validate_python(cause.details[1]))
    if cause.type == 'ApprovalRequired':
        return ApprovalRequired(metadata=detail)
    return CallDeferred(metadata=detail)


def validation_error_from_activity_error(error: ActivityError) -> pydantic.ValidationError | None:
    """The `ValidationError` a tool activity failed with, rebuilt with the same error details, or `None`.

    Only the call-tool path turns it back: in-process, a `ValidationError` from a tool is a retry prompt, while one
    from a model request fails the run, as the activity failure does.
    """
    cause = error.cause
    if not isinstance(cause, ApplicationError) or cause.type != _VALIDATION_ERROR:
        return None
    if len(cause.details) < 2:
        return None  # the details were left out to fit the history: a plain failure, which still says what went wrong
    title, errors = str(cause.details[0]), cast('list[dict[str, Any]]', cause.details[1])
    # A custom error keeps each error's own type and message as sent, whatever context its template needed. The
    # template is never formatted (no context is given), so any text may stand where a literal is expected.
    line_errors: list[InitErrorDetails] = [
        {
            'type': pydantic_core.PydanticCustomError(
                cast('LiteralString', str(e['type'])), cast('LiteralString', str(e['msg']))
            ),
            'loc': tuple(e.get('loc', ())),
            'input': e.get('input'),
        }
        for e in errors
    ]
    return pydantic_core.ValidationError.from_exception_data(title, line_errors)
