"""The local activity that calls the `ask` of a durable wait for an external event: once, recorded in the history.

A durable wait (see `workflows._event_waits`) must call its `ask` once and never again on replay, whatever `ask`
does (post a chat message, send an email, answer at once). A local activity gives exactly that: the workflow
schedules it, the worker runs it in its own process, and the history records its result (a marker) when the
workflow task completes; a replay takes the recorded result without running it. A worker that dies before the
marker is recorded leaves the workflow task to time out, and the next worker replays and asks again: `ask` must be
safe to call twice with the same token, as Pydantic AI asks of it.

`ask` is a closure over the run (the pending tool calls, the run context, the agent's own function), which no
activity input could carry. A local activity always runs in the worker process that runs the workflow task that
scheduled it, so the workflow hands the closure over through this module's registry (the module is passed through
the sandbox, so the workflow's and the worker's are the same): it registers the closure under the run and the
wait's key before it schedules the activity, and removes it once the activity is done, on replay as well (where
nothing calls it).
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from ._errors import to_application_error

__all__ = ('ASK_ACTIVITY', 'ASK_MISSING', 'ExternalEventAsk', 'ExternalEventAsked', 'ask_external_event', 'asking')

ASK_ACTIVITY = 'agent.external_event.ask'
"""The local activity's name (one for every agent of a worker)."""

ASK_MISSING = 'AskNotInThisWorker'
"""The failure type of an attempt that found no `ask` registered for its wait (retried)."""

Ask = Callable[[str], Awaitable[Any]]


@dataclass
class ExternalEventAsk:
    """Input of the ask activity."""

    name: str
    """The wait's name (`RequestInput.name`)."""
    key: str
    """The wait's key in its workflow run (`'<name>.<n>'`)."""
    token: str
    """The resume token to hand to `ask`."""


@dataclass
class ExternalEventAsked:
    """Result of the ask activity."""

    answer: Any = None
    """What `ask` answered (JSON), or `None` when the answer comes by the token."""


_asks: dict[tuple[str, str, str], Ask] = {}
"""The `ask` of each wait whose activity may run now, by workflow id, workflow run id and key."""

_lock = threading.Lock()
"""Workflow tasks run on the worker's activation threads; the activity on its event loop."""


@contextmanager
def asking(workflow_id: str, run_id: str, key: str, ask: Ask) -> Generator[None]:
    """Make `ask` the one the activity of wait `key` of that run calls, while the block runs."""
    entry = (workflow_id, run_id, key)
    with _lock:
        _asks[entry] = ask
    try:
        yield
    finally:
        with _lock:
            if _asks.get(entry) is ask:
                del _asks[entry]


@activity.defn(name=ASK_ACTIVITY)
async def ask_external_event(inp: ExternalEventAsk) -> ExternalEventAsked:
    """Call the registered `ask` of the wait with its token.

    Raises:
        ApplicationError: non-retryable, of type `UserError`, when `ask` raised `UserError` (a mistake no retry
            mends: the run fails with its message); retryable, of type `ASK_MISSING`, when no `ask` is registered
            for the wait (its run left this worker's memory meanwhile; the attempt that counts comes with the
            replay). Other exceptions of `ask` fail the attempt, which the workflow's retry policy retries.
    """
    info = activity.info()
    with _lock:
        ask = _asks.get((info.workflow_id or '', info.workflow_run_id or '', inp.key))
    if ask is None:
        raise ApplicationError(
            f'No ask is registered for wait {inp.key!r} of run {info.workflow_run_id!r} in this worker.',
            type=ASK_MISSING,
        )
    try:
        return ExternalEventAsked(await ask(inp.token))
    except Exception as exc:
        if (converted := to_application_error(exc)) is not None:
            raise converted from exc
        raise
