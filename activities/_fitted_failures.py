"""Failures cut to fit Temporal's limits, and cleared of keys, before they are written to a run's history.

Temporal keeps a failure (message, stack trace, details and its chain of causes) in the run's history and replaces
one that is too large with its own "Failure exceeds size limit." (the text the person needed is gone). There are two
limits: any failure over 2 MB, and the last failure of an activity that will be retried over 4 KB (the server's
`limit.mutableStateActivityFailureSize.error`; a Python traceback alone often passes it). A provider's error may also
echo the request's API key (see `activities._redaction`). So the runtime converts an error as the SDK would, then
fits the failure here:

- every message and stack trace loses its keys;
- a message keeps its first `MESSAGE_LIMIT` characters, a stack trace its last `STACK_TRACE_LIMIT` (the innermost
  frames), each with a note of how long it was; details over half the limit are left out, with a note;
- while the failure is still over its limit (`FAILURE_LIMIT`, or `RETRIED_FAILURE_LIMIT` for an activity failure
  that Temporal will retry), the longest stack trace is halved (down to nothing), then the longest message (down to
  `MIN_MESSAGE`), then the deepest cause is left out. Messages outlive stack traces and the first failure (the
  exception that was raised) outlives its causes, so the run's failure still says what went wrong.

The result travels as a `FittedFailure`: an `ApplicationError` that carries its finished failure. The SDK writes an
error that carries a failure exactly as that failure, whatever Python exception it was raised from, so the fitted
form is what reaches history even where the caller chains the original (`raise fitted from exc`).
"""

from __future__ import annotations

from dataclasses import dataclass

from temporalio import activity, workflow
from temporalio.api.failure.v1 import Failure
from temporalio.converter import FailureConverter, PayloadConverter
from temporalio.exceptions import ApplicationError

from ._redaction import redact

__all__ = (
    'FAILURE_LIMIT',
    'HEADLINE_LIMIT',
    'MESSAGE_LIMIT',
    'MIN_MESSAGE',
    'RETRIED_FAILURE_LIMIT',
    'STACK_TRACE_LIMIT',
    'FittedFailure',
    'cut',
    'failure_of',
    'fit',
    'fitted_failure',
    'headline',
)

FAILURE_LIMIT = 64 * 1024
"""Bytes a failure may take in history: well under Temporal's 2 MB, since a history holds many."""
RETRIED_FAILURE_LIMIT = 4000
"""Bytes the failure of an activity attempt that Temporal will retry may take: the server keeps it as the activity's
last failure only up to 4 KB and writes "Failure exceeds size limit." instead of a larger one."""
MESSAGE_LIMIT = 16 * 1024
"""Characters one failure message keeps at most."""
MIN_MESSAGE = 512
"""Characters a message keeps however tight the limit: its causes are left out first."""
STACK_TRACE_LIMIT = 4 * 1024
"""Characters one stack trace keeps at most."""
HEADLINE_LIMIT = 2048
"""Characters of the summary at the top of a run's failure (`headline`)."""

_MIN_STACK_TRACE = 512  # a shorter tail of a traceback rarely shows where it went wrong: it is left out instead


class FittedFailure(ApplicationError):
    """An `ApplicationError` written to history as exactly the (fitted) failure it carries."""

    def __init__(self, failure: Failure) -> None:
        """Carry `failure`; the error's own attributes mirror its application failure info."""
        info = failure.application_failure_info
        super().__init__(
            failure.message,
            type=info.type or None,
            non_retryable=info.non_retryable,
            next_retry_delay=info.next_retry_delay.ToTimedelta() if info.HasField('next_retry_delay') else None,
        )
        self._fitted = failure

    @property
    def failure(self) -> Failure:
        """The failure written to history."""
        return self._fitted


def failure_of(error: BaseException) -> Failure:
    """The failure the SDK would write for `error`, its causes included (not fitted yet)."""
    failure = Failure()
    FailureConverter.default.to_failure(error, _payload_converter(), failure)
    return failure


def fitted_failure(error: BaseException) -> tuple[Failure, bool]:
    """The failure the SDK would write for `error`, fitted to its limit; and whether fitting changed it.

    The limit is `RETRIED_FAILURE_LIMIT` for a retryable failure raised in an activity, else `FAILURE_LIMIT`.
    """
    failure = failure_of(error)
    retried = activity.in_activity() and not failure.application_failure_info.non_retryable
    return failure, fit(failure, RETRIED_FAILURE_LIMIT if retried else FAILURE_LIMIT)


_REDACTION_MARGIN = 4096
"""Characters redacted past what a failure can keep: a text is redacted only that far (redacting megabytes in a
workflow task would take seconds), and its last `_PARTIAL_SECRET` of them are dropped, where a secret the cut went
through could be left half unredacted."""

_PARTIAL_SECRET = 256
"""Longer than any key a worker knows."""


def _redacted_start(text: str, keep: int) -> str:
    """`text` redacted, or of a longer text its start, redacted: more than the `keep` characters a failure keeps."""
    if len(text) <= keep + _REDACTION_MARGIN:
        return redact(text)
    return redact(text[: keep + _REDACTION_MARGIN])[:-_PARTIAL_SECRET]


def _precut(text: str, keep: int) -> int | None:
    """The length of `text` if `_redacted_start` or `_redacted_end` redact only part of it, else `None`."""
    return len(text) if len(text) > keep + _REDACTION_MARGIN else None


def _redacted_end(text: str, keep: int) -> str:
    """As `_redacted_start`, keeping the end (a stack trace's last frames)."""
    if len(text) <= keep + _REDACTION_MARGIN:
        return redact(text)
    return redact(text[-(keep + _REDACTION_MARGIN) :])[_PARTIAL_SECRET:]


@dataclass
class _Link:
    """One failure of a chain: its (redacted) text, how long it was, and how much of it is kept."""

    failure: Failure
    message: str
    stack_trace: str
    message_length: int | None
    """The length of the message `message` is the redacted start of, if it is only that (else `None`)."""
    stack_trace_length: int | None
    """As `message_length`, of the stack trace's end."""
    message_limit: int = MESSAGE_LIMIT
    stack_trace_limit: int = STACK_TRACE_LIMIT
    note: str = ''

    def render(self) -> None:
        self.failure.message = cut(self.message, self.message_limit, self.message_length) + self.note
        self.failure.stack_trace = _cut_start(self.stack_trace, self.stack_trace_limit, self.stack_trace_length)


def fit(failure: Failure, limit: int = FAILURE_LIMIT) -> bool:
    """Redact `failure` and its causes and cut them to `limit` bytes, in place (see the module docs).

    Returns:
        Whether anything changed.
    """
    original = Failure()
    original.CopyFrom(failure)
    chain: list[_Link] = []
    link: Failure | None = failure
    while link is not None:
        message, trace = link.message, link.stack_trace
        chain.append(
            _Link(
                link,
                _redacted_start(message, MESSAGE_LIMIT),
                _redacted_end(trace, STACK_TRACE_LIMIT),
                _precut(message, MESSAGE_LIMIT),
                _precut(trace, STACK_TRACE_LIMIT),
            )
        )
        link = link.cause if link.HasField('cause') else None
    for item in chain:
        details = item.failure.application_failure_info.details
        if details.ByteSize() > limit // 2:
            item.note = f' [details of {details.ByteSize():,} bytes left out]'
            item.failure.application_failure_info.ClearField('details')
        item.render()
    while failure.ByteSize() > limit and _shrink(chain):
        pass
    return failure != original


def _shrink(chain: list[_Link]) -> bool:
    """Make the chain smaller by one step (see the module docs); `False` if nothing is left to take."""
    with_stack = [item for item in chain if item.stack_trace_limit and item.stack_trace]
    if with_stack:
        item = max(with_stack, key=lambda i: len(i.failure.stack_trace))
        half = min(item.stack_trace_limit, len(item.stack_trace)) // 2
        item.stack_trace_limit = half if half >= _MIN_STACK_TRACE else 0
    elif long := [i for i in chain if min(i.message_limit, len(i.message)) > MIN_MESSAGE]:
        item = max(long, key=lambda i: len(i.failure.message))
        item.message_limit = max(MIN_MESSAGE, min(item.message_limit, len(item.message)) // 2)
    elif len(chain) > 1:
        chain.pop()
        item = chain[-1]
        item.failure.ClearField('cause')
        item.note += ' [its causes were left out: the failure was too large]'
    else:
        return False
    item.render()
    return True


def cut(text: str, limit: int, length: int | None = None) -> str:
    """`text`, or its start and a note of its length if it is longer than `limit` (the result never is).

    `length` is the length of the text `text` was cut from, if it was.
    """
    if len(text) <= limit and length is None:
        return text
    note = f' … [cut: {length or len(text):,} characters in all]'
    if limit <= len(note):
        return text[:limit]
    return text[: limit - len(note)] + note


def _cut_start(text: str, limit: int, length: int | None = None) -> str:
    if len(text) <= limit and length is None:
        return text
    note = f'[cut: {length or len(text):,} characters in all] … '
    if limit <= len(note):
        return ''
    return note + text[len(text) - (limit - len(note)) :]


def headline(kind: str, message: str) -> str:
    """`'<kind>: <message>'`, redacted, in at most `HEADLINE_LIMIT` characters: the top of a run's failure.

    What is left out is in the failure's cause, which keeps the whole (fitted) message.
    """
    text = f'{kind}: {_redacted_start(message, HEADLINE_LIMIT)}'
    if len(text) <= HEADLINE_LIMIT and len(message) <= HEADLINE_LIMIT + _REDACTION_MARGIN:
        return text
    more = ' … [cut: the cause has more]'
    return text[: HEADLINE_LIMIT - len(more)] + more


def _payload_converter() -> PayloadConverter:
    """The converter of the activity or workflow this runs in (for failure details), or the SDK's default."""
    if activity.in_activity():
        return activity.payload_converter()
    if workflow.in_workflow():
        return workflow.payload_converter()
    return PayloadConverter.default
