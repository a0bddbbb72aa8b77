"""Waits for external events: the in-process registry of pending waits, and the waiter a durable engine replaces.

The public names are re-exported by `agent.external_events`, whose docstring describes the design.
"""

from __future__ import annotations

import asyncio
import inspect
import secrets
import threading
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Generator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta

import pydantic_core
from pydantic import JsonValue

from ._durable_unit import durable_unit_scope, in_durable_unit
from ._ports import current_ports
from ._threads import call_maybe_async
from .exceptions import UserError

__all__ = (
    'Credit',
    'ExternalEventError',
    'ExternalEventWaiter',
    'Validate',
    'check_payload',
    'check_timeout',
    'external_event_scope',
    'fail_external_event',
    'is_pending',
    'resolve_external_event',
    'to_json',
    'wait_for_external_event',
)


class ExternalEventError(Exception):
    """The event a wait was for will not arrive: its timeout elapsed, or its token was failed. The message says why."""


Validate = Callable[[JsonValue], object]
"""Checks the JSON payload a resolver sends before it ends a wait; raises `ValueError` or `UserError` saying what is
wrong with it (pydantic's `ValidationError` is a `ValueError`). What it returns is ignored."""

Credit = Callable[[JsonValue, str], JsonValue]
"""Given a payload (already checked) and who sent it, the payload crediting them (`RequestInput`: `answered_by`)."""


class ExternalEventWaiter(ABC):
    """How waits happen: in this process by default; a durable engine implements one to record them."""

    @abstractmethod
    async def wait(
        self,
        name: str,
        *,
        ask: Callable[[str], Awaitable[JsonValue]],
        timeout: timedelta | None,  # noqa: ASYNC109 - Pydantic AI's interface; a durable engine times out its own way
        validate: Validate | None = None,
        credit: Credit | None = None,
    ) -> JsonValue:
        """Create a resume token, call `ask` with it once, and unless `ask` answered, wait until the token is resolved.

        `validate` and `credit` extend Pydantic AI's signature: `wait_for_external_event` passes them only to a
        waiter whose `wait` takes them, and checks the payload itself after the wait of one that does not.

        Args:
            name: The wait's name, stable across deployments (a durable engine names its record of the wait by it).
            ask: Called once with the token; returns the JSON answer when it answered at once, or `None` when the
                answer comes by the token.
            timeout: How long to wait (including `ask`), or `None` for no limit.
            validate: Refuses a resolution's payload that does not fit the wait, before it ends the wait: the
                resolver is told why (`ValueError`/`UserError` message) and the wait goes on.
            credit: Applied to a resolution's payload (after `validate`) when the resolver names who it is.

        Returns:
            The answer `ask` returned, or else the JSON payload the token was resolved with.

        Raises:
            ExternalEventError: The timeout elapsed, or the token was failed.
        """


_current_waiter: ContextVar[ExternalEventWaiter | None] = ContextVar('agent_external_event_waiter', default=None)


@contextmanager
def external_event_scope(waiter: ExternalEventWaiter) -> Generator[ExternalEventWaiter]:
    """Make the waits of the code inside (typically one durable run) go through `waiter`."""
    token = _current_waiter.set(waiter)
    try:
        yield waiter
    finally:
        # Closed from another context (an evicted workflow's coroutine is closed by the worker): that context is
        # being discarded, so there is nothing to restore.
        with suppress(ValueError):
            _current_waiter.reset(token)


@dataclass(eq=False)
class _PendingWait:
    """One in-process wait: its outcome, set once by whoever settles it, and how to wake it from any thread."""

    loop: asyncio.AbstractEventLoop
    done: asyncio.Event
    validate: Validate | None = None
    credit: Credit | None = None
    settled: bool = False
    payload: JsonValue = None
    error: ExternalEventError | None = None

    def wake(self) -> None:
        # The waiting task may have ended and its loop closed meanwhile: the outcome is settled either way.
        with suppress(RuntimeError):
            self.loop.call_soon_threadsafe(self.done.set)


_pending: dict[str, _PendingWait] = {}
"""The in-process waits still pending, by token; each wait removes its own entry when it ends."""

_lock = threading.Lock()
"""Settling a wait and taking it out of `_pending` is one step, so that exactly one resolver wins."""


def _settle(token: str, *, payload: JsonValue = None, error: ExternalEventError | None = None) -> _PendingWait | None:
    """Settle the wait for `token` and take it out of the registry; `None` if no wait has this token."""
    with _lock:
        pending = _pending.pop(token, None)
        if pending is not None:
            pending.settled = True
            pending.payload = payload
            pending.error = error
    return pending


class _InProcessWaiter(ExternalEventWaiter):
    """Waits in this process: the token is a random string, resolved by `resolve_external_event`."""

    async def wait(
        self,
        name: str,
        *,
        ask: Callable[[str], Awaitable[JsonValue]],
        timeout: timedelta | None,  # noqa: ASYNC109 - Pydantic AI's interface; a durable engine times out its own way
        validate: Validate | None = None,
        credit: Credit | None = None,
    ) -> JsonValue:
        token = secrets.token_urlsafe(32)
        pending = _PendingWait(asyncio.get_running_loop(), asyncio.Event(), validate, credit)
        with _lock:
            _pending[token] = pending
        deadline = asyncio.timeout(None if timeout is None else timeout.total_seconds())
        try:
            async with deadline:
                answer = await ask(token)
                # `ask` answering is a resolution like any other: if a resolver got in first, it won.
                if answer is not None and _settle(token, payload=answer) is not None:
                    return answer
                await pending.done.wait()
        except TimeoutError:
            if not deadline.expired():
                raise  # `ask`'s own TimeoutError, not the wait's
        finally:
            with _lock:
                _pending.pop(token, None)
        # Read once the entry is gone: a resolver either settled the wait before that (and was told it did, so its
        # outcome stands even if the timeout fired at the same moment) or found no wait and raised.
        if not pending.settled:
            raise ExternalEventError(f'No resolution arrived within {timeout}.')
        if pending.error is not None:
            raise pending.error
        return pending.payload


_IN_PROCESS = _InProcessWaiter()


async def wait_for_external_event(
    name: str,
    *,
    ask: Callable[[str], Awaitable[object | None] | object | None],
    timeout: timedelta | None = None,  # noqa: ASYNC109 - Pydantic AI's signature; a durable engine times out its own way
    validate: Validate | None = None,
    credit: Credit | None = None,
) -> JsonValue:
    """Hand a new resume token to `ask`, and return the answer `ask` gives or else the payload the token gets.

    In process, the token is resolved with `resolve_external_event` or failed with `fail_external_event`, from
    anywhere in this process. In a durable run, the engine's waiter records the wait (see the module docstring).

    Args:
        name: The wait's name in a durable engine's history; keep it stable across deployments.
        ask: Called once with the token, sync (in a worker thread, like a sync tool) or async. It returns the answer
            (converted to its JSON form), or `None` to wait for the token to be resolved; a `None` payload can only
            come by the token. It runs as a durable unit: it may not wait for an event itself.
        timeout: How long to wait before giving up, `None` for no limit. It bounds `ask` too: an async `ask` still
            running when it elapses is cancelled.
        validate: An extension of Pydantic AI's signature: checks the JSON payload a resolver sends and raises
            `ValueError` (or `UserError`) saying what is wrong with it; the resolution is then refused (in process:
            `resolve_external_event` raises `UserError`; a durable engine's door refuses it) and the wait goes on.
            Keep it pure: a durable engine calls it in its workflow.
        credit: An extension too: given a resolution's payload and the caller the resolver named (`caller=`),
            returns the payload crediting them (`RequestInput` fills in `answered_by`). Pure, like `validate`.

    Returns:
        The JSON form of the answer `ask` returned, or the payload the token was resolved with.

    Raises:
        ExternalEventError: The timeout elapsed, or the token was failed (the message is the reason).
        UserError: `timeout` is not positive; the wait was started inside a durable unit (a tool call in an
            activity, or an `ask`); it was started in a durable run whose engine installed no waiter; `ask`
            returned something that has no JSON form; or the waiter does not take `validate` and the payload it
            returned does not pass it.
    """
    check_timeout(timeout)
    if in_durable_unit():
        raise UserError(
            '`wait_for_external_event()` was called inside a durable unit, such as a tool call that runs in an '
            'activity or an `ask` function. The wait has to be recorded by the run itself: answer the tool call with '
            '`RequestInput` (a capability, from `agent.capabilities`) instead.'
        )
    waiter = _current_waiter.get()
    if waiter is None:
        if not current_ports().waits_in_process:
            raise UserError(
                'Waiting for an external event (such as `RequestInput` asking for an answer) is not available in a '
                "durable run yet: a wait held in the worker would not be recorded in the run's history, so a replay "
                'would ask again and a restart would lose it. A durable run already waits for approvals and '
                'external results of deferred tool calls without it: remove `RequestInput`, or use '
                '`HandleDeferredToolCalls` for answers that need no waiting.'
            )
        waiter = _IN_PROCESS

    async def ask_with_token(token: str) -> JsonValue:
        # Whatever `ask` does is recorded as one unit by a durable engine, so it may not start a wait of its own.
        with durable_unit_scope():
            answer = await call_maybe_async(ask, token)
            if inspect.isawaitable(answer):
                answer = await answer
        return None if answer is None else to_json(answer)

    if _takes_extensions(waiter):
        return await waiter.wait(name, ask=ask_with_token, timeout=timeout, validate=validate, credit=credit)
    # A waiter written for Pydantic AI's signature: the payload is checked once it reaches the run.
    payload = await waiter.wait(name, ask=ask_with_token, timeout=timeout)
    if validate is not None:
        check_payload(validate, payload)
    return payload


def _takes_extensions(waiter: ExternalEventWaiter) -> bool:
    """Whether `waiter.wait` takes `validate` and `credit` (ours do; one written for Pydantic AI's may not)."""
    parameters = inspect.signature(waiter.wait).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return True
    return 'validate' in parameters and 'credit' in parameters


def check_payload(validate: Validate, payload: JsonValue) -> None:
    """Run `validate` on `payload`.

    Raises:
        UserError: `validate` refused it; the message is one line saying why.
    """
    try:
        validate(payload)
    except (ValueError, UserError) as error:
        raise UserError(f'The payload does not fit the wait: {_one_line(error)}') from error


def _one_line(error: Exception) -> str:
    text = error.message if isinstance(error, UserError) else str(error)
    return ' '.join(text.split())


def resolve_external_event(token: str, payload: object, *, caller: str | None = None) -> None:
    """End the in-process wait for `token` with `payload` (converted to its JSON form), from any thread.

    Args:
        token: The token the wait handed to `ask`.
        payload: The answer.
        caller: An extension of Pydantic AI's signature: who answers (a free-form id), given to the wait's `credit`
            (`RequestInput` records it in `answered_by` for the calls the payload answers without naming anyone).

    Raises:
        UserError: `payload` has no JSON form or the wait's `validate` refuses it (the wait goes on), or no wait in
            this process has this token: it is wrong, from another process or a durable engine, or its wait already
            ended (resolved, failed, timed out or cancelled).
    """
    value = to_json(payload)
    with _lock:
        pending = _pending.get(token)
    if pending is not None:
        # Outside the lock: `validate` is the wait's own code. The wait may end meanwhile; `_end` then says so.
        if pending.validate is not None:
            check_payload(pending.validate, value)
        if caller is not None and pending.credit is not None:
            value = pending.credit(value, caller)
    _end(token, payload=value)


def fail_external_event(token: str, reason: str) -> None:
    """End the in-process wait for `token` without an answer: the wait raises `ExternalEventError(reason)`.

    `RequestInput` then denies the pending approvals and fails the pending external calls, telling the model `reason`.

    Raises:
        UserError: no wait in this process has this token (see `resolve_external_event`).
    """
    _end(token, error=ExternalEventError(reason))


def is_pending(token: str) -> bool:
    """Whether an in-process wait has `token` and has not ended yet (it may end the next moment)."""
    with _lock:
        return token in _pending


def _end(token: str, *, payload: JsonValue = None, error: ExternalEventError | None = None) -> None:
    pending = _settle(token, payload=payload, error=error)
    if pending is None:
        raise UserError(
            'No wait in this process has this token: it is wrong, from another process or a durable engine, or its '
            'wait already ended (it was resolved or failed, timed out, or was cancelled).'
        )
    pending.wake()


def to_json(payload: object) -> JsonValue:
    """The JSON form of `payload`, as it would arrive through a durable engine.

    Raises:
        UserError: `payload` has no JSON form.
    """
    try:
        return pydantic_core.to_jsonable_python(payload)
    except pydantic_core.PydanticSerializationError as error:
        raise UserError(f'The payload of an external event must have a JSON form: {error}') from error


def check_timeout(timeout: timedelta | None) -> None:
    """Refuse a `timeout` that is not positive.

    Raises:
        UserError: `timeout` is zero or negative.
    """
    if timeout is not None and timeout <= timedelta(0):
        raise UserError(f'`timeout` must be positive, got {timeout!r}.')
