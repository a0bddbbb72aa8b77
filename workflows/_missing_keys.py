"""An activity whose encrypted input only workers without its key took is scheduled again, not failed.

A worker without the key of an encrypted run (no keys, or other keys) cannot read an activity's input: the SDK fails
the attempt while it decodes the task, before any activity code runs, with an `ApplicationError` "Failed decoding
arguments" whose cause is the codec's `DecryptionError` ("Missing key id 'k1': ..."). That attempt counts like any
other, and Temporal gives a worker no way to hand a task back uncounted: a tool call has three attempts, so a
keyless worker that takes all three would end the run. The workflow therefore reads such a failure as "no worker
with the key took it yet", not as the activity's outcome: it logs the error, waits (1 s, doubling up to 5 minutes)
and schedules the activity again under a new id (`<id>.again<n>`, deterministic, so replay agrees), until a worker
holding the key runs it. No attempt that failed so reached the activity's code, so the tool runs once, on that
worker; each scheduling has the activity's attempts afresh, so a tool that then fails for real ends as usual. The
failure must be readable by the workflow's worker: see `workflows._encryption.EncryptedFailureConverter`.

Each round adds the activity's scheduling (its input included) and a timer to the history, which is why the waits
grow: a day without the key costs a few hundred rounds. A payload that does not authenticate (altered, or a key of
the same id with other bytes) is refused the same way and waits too: no worker can tell a wrong key from a changed
payload, and only a person can fix either.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TypeVar

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

__all__ = ('FIRST_WAIT', 'LONGEST_WAIT', 'undecryptable_input', 'until_decrypted')

T = TypeVar('T')

FIRST_WAIT = timedelta(seconds=1)
"""The wait before an activity is first scheduled again; each later wait doubles, up to `LONGEST_WAIT`."""
LONGEST_WAIT = timedelta(minutes=5)
"""The longest wait between two schedulings of an activity that no worker with its key has taken."""

_DECODING_FAILED = 'Failed decoding arguments'  # the SDK's failure for an activity input it could not decode
_DECRYPTION_ERROR = 'DecryptionError'  # `workflows._encryption.DecryptionError`, as the failure converter names it


def undecryptable_input(error: ActivityError) -> str | None:
    """The decryption error an activity failed with because its worker could not read its input, or `None`."""
    decoding = error.cause
    if not isinstance(decoding, ApplicationError) or decoding.message != _DECODING_FAILED:
        return None
    cause = decoding.cause
    if isinstance(cause, ApplicationError) and cause.type == _DECRYPTION_ERROR:
        return cause.message
    return None


async def until_decrypted(schedule: Callable[[str], Awaitable[T]], activity_id: str) -> T:
    """`schedule(activity_id)`'s result, scheduled again (`<activity_id>.again<n>`) while its input is undecryptable.

    Raises:
        ActivityError: the activity's failure for any other reason.
    """
    again = 0
    while True:
        try:
            return await schedule(activity_id if again == 0 else f'{activity_id}.again{again}')
        except ActivityError as exc:
            missing = undecryptable_input(exc)
            if missing is None:
                raise
            wait = min(FIRST_WAIT * 2**again, LONGEST_WAIT)
            again += 1
            workflow.logger.warning(
                'Activity %s was taken only by workers that cannot decrypt its input (%s); scheduling it again as '
                '%s.again%d in %s, for a worker with the key.',
                activity_id,
                missing,
                activity_id,
                again,
                wait,
            )
            await workflow.sleep(wait, summary=f'Waiting for a worker with the key to run {activity_id}')
