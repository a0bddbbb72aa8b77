"""`EventWaits`: a workflow run's waits for external events (`RequestInput`, `wait_for_external_event`), durable.

The workflow installs one `EventWaits` per workflow run with `external_event_scope` around each agent run, so every
wait of the run comes here. A wait:

1. takes the next key of the workflow run (`'<name>.<n>'`) and the resume token that addresses it
   (`workflows._resume_tokens`: workflow id, run id, key), and is listed in the `status` query from then on;
2. calls `ask(token)` once, as a local activity whose result the history records (`activities._external_event_ask`):
   a replay takes the recorded answer and never asks again. A failing `ask` is retried (`ASK_RETRY`); one that
   raises `UserError` fails the run with its message; with a timeout, asking counts against it;
3. returns `ask`'s answer if it gave one; otherwise waits, on a durable timer when there is a timeout, until the
   token is resolved or failed through one of the workflow's doors (the `resolve_external_event` update, the
   `submit_external_event` signal), and returns the payload or raises `ExternalEventError` (failed, or timed out).

While a wait waits for its resolution (step 3) the run waits for a person: the worker drops it from its cache, as
it does for a run waiting for approvals (`workflows._eviction`), and replays it when the resolution arrives.

The doors check a resolution before it counts (`check`): the token must decode and name this workflow run and a
wait that is pending, and the payload must pass the wait's `validate` (`RequestInput`: `DeferredToolResults`
naming only pending calls), and the agent's approval rules must allow the caller to give the approvals it gives
(`workflows._decisions.token_answer_refusal`). A refused update leaves nothing in the history; a refused signal is
listed under the run's `rejected`. A resolution may name its caller, which is logged, kept with the ended wait and
handed to the wait's `credit` (`RequestInput` fills in `answered_by`). A resolution that arrives while `ask` still
runs counts (the person was quick); `ask`'s answer then comes second and is dropped, as in process.

A resolution may also arrive for the run's next wait, before the run has reached it: a worker ran `ask` (which
handed the token out) and died before the workflow task that ran it was recorded, and the worker now replaying the
run has not got that far when the resolution comes with the same activation. The run reaches that wait on the
same code, with the same key and token. The update is refused with `WAIT_NOT_REACHED` (nothing is recorded; the
client sends it again a moment later, see `workflows._token_sends`); the signal, which cannot be sent again, is held
and applied when the wait begins, whose `ask` is then not called again.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta

from pydantic import JsonValue
from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.exceptions import TimeoutError as ActivityTimeoutError

from activities._external_event_ask import ASK_ACTIVITY, ExternalEventAsk, ExternalEventAsked, asking
from agent._external_events import Credit, ExternalEventError, ExternalEventWaiter, Validate
from agent.exceptions import UserError

from ._resume_tokens import decode_token, encode_token
from ._types import ExternalEventResolution, PendingExternalEvent

__all__ = ('ASK_ATTEMPT_TIMEOUT', 'ASK_RETRY', 'MAX_CALLER_CHARS', 'EventWaits', 'WaitNotReached')

ASK_ATTEMPT_TIMEOUT = timedelta(minutes=1)
"""Longest one call of `ask` may take (less when the wait's timeout is shorter): `ask` hands a token on, quickly."""

ASK_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(minutes=1))
"""How a failing `ask` is retried: without a limit (until the wait's timeout, if it has one), backing off to once a
minute, as Temporal retries an activity until its code or the service it calls is fixed."""

MAX_CALLER_CHARS = 255
"""Longest caller a resolution may name (as long as a run's owner)."""

_ENDED_KEPT = 100
"""How many ended waits a run remembers, to tell a late or repeated resolution why it is refused."""


class WaitNotReached(ValueError):
    """A resolution for the run's next wait, which the run has not reached yet (see the module docstring)."""


@dataclass(eq=False)
class _Wait:
    """One wait of the run: what the `status` query shows of it, and its outcome once it is settled."""

    name: str
    key: str
    token: str
    since: datetime
    expires: datetime | None
    validate: Validate | None
    credit: Credit | None
    asked: bool = False
    """`ask` handed the token on (answered `None`): only a resolution can end the wait now."""
    settled: bool = False
    payload: JsonValue = None
    failure: str | None = None
    caller: str | None = None
    how: str = ''
    """How it was settled, as a refused resolution is told (`'it was resolved by 'alice''`)."""


class EventWaits(ExternalEventWaiter):
    """The waits for external events of one workflow run (see the module docstring)."""

    def __init__(
        self,
        reject: Callable[[str], None] = lambda reason: None,
        authorize: Callable[[JsonValue, str | None], str | None] = lambda payload, caller: None,
    ) -> None:
        """`reject` is told why a held resolution could not be used once its wait began (see `submit`); `authorize`
        says why a payload's caller may not give it (the agent's approval rules), or `None`."""
        self._count = 0
        self._pending: dict[str, _Wait] = {}
        self._ended: OrderedDict[str, str] = OrderedDict()  # key -> how it ended, the newest last
        self._held: dict[str, ExternalEventResolution] = {}  # the next wait's, sent by signal before it began
        self._reject = reject
        self._authorize = authorize

    @property
    def waiting_for_people(self) -> bool:
        """Whether a wait waits for its resolution (its `ask` is done): only a person can move it on."""
        return any(wait.asked and not wait.settled for wait in self._pending.values())

    def pending(self) -> list[PendingExternalEvent]:
        """The waits not yet ended, oldest first, as the `status` query lists them."""
        return [PendingExternalEvent(w.name, w.token, w.since, w.expires) for w in self._pending.values()]

    async def wait(
        self,
        name: str,
        *,
        ask: Callable[[str], Awaitable[JsonValue]],
        timeout: timedelta | None,  # noqa: ASYNC109 - the waiter's interface; the timeout is a durable timer here
        validate: Validate | None = None,
        credit: Credit | None = None,
    ) -> JsonValue:
        """Ask once (recorded), then wait durably for the token's resolution (see the module docstring).

        Raises:
            ExternalEventError: The token was failed, or `timeout` elapsed (asking included).
            UserError: `ask` raised `UserError`.
        """
        self._count += 1
        key = f'{name}.{self._count}'
        info = workflow.info()
        now = workflow.now()
        wait = _Wait(
            name,
            key,
            encode_token(info.workflow_id, info.run_id, key),
            now,
            now + timeout if timeout is not None else None,
            validate,
            credit,
        )
        self._pending[key] = wait
        ended = 'it was cancelled'
        try:
            held = self._held.pop(key, None)
            for other in [k for k in self._held if _number(k) <= self._count]:  # held for a wait the run never had
                del self._held[other]
                self._reject(f'This run has no wait {other!r}: its wait number {self._count} is {key!r}.')
            if held is not None:
                try:
                    self.settle(held)
                except ValueError as refused:
                    self._reject(str(refused))
            # Settled already: `ask` handed this token out before a crash, and its resolution came by signal.
            answer = await self._ask(wait, ask, timeout) if not wait.settled else None
            if answer is not None and not wait.settled:
                wait.settled, wait.payload, wait.how = True, answer, 'ask answered it'
            if not wait.settled:
                wait.asked = True
                left = (wait.expires - workflow.now()).total_seconds() if wait.expires is not None else None
                if left is None or left > 0:
                    with suppress(TimeoutError):
                        await workflow.wait_condition(lambda: wait.settled, timeout=left)
            ended = wait.how if wait.settled else 'it timed out'
        finally:
            del self._pending[key]
            self._ended[key] = ended
            while len(self._ended) > _ENDED_KEPT:
                self._ended.popitem(last=False)
        if not wait.settled:
            raise ExternalEventError(f'No resolution arrived within {timeout}.')
        if wait.failure is not None:
            raise ExternalEventError(wait.failure)
        return wait.payload

    async def _ask(
        self, wait: _Wait, ask: Callable[[str], Awaitable[JsonValue]], within: timedelta | None
    ) -> JsonValue:
        """Call `ask` once, as a local activity, within the wait's timeout; its answer, from the history on replay."""
        info = workflow.info()
        attempt = min(ASK_ATTEMPT_TIMEOUT, within) if within is not None else ASK_ATTEMPT_TIMEOUT
        with asking(info.workflow_id, info.run_id, wait.key, ask):
            try:
                asked = await workflow.execute_local_activity(
                    ASK_ACTIVITY,
                    ExternalEventAsk(wait.name, wait.key, wait.token),
                    result_type=ExternalEventAsked,
                    activity_id=f'external_event.{wait.key}',
                    start_to_close_timeout=attempt,
                    schedule_to_close_timeout=within,
                    retry_policy=ASK_RETRY,
                    summary=f'Ask: {wait.name}',
                )
            except ActivityError as exc:
                cause = exc.cause
                if isinstance(cause, ApplicationError) and cause.type == 'UserError':
                    raise UserError(cause.message) from None
                expired = wait.expires is not None and workflow.now() >= wait.expires
                if isinstance(cause, ActivityTimeoutError) or expired:
                    raise ExternalEventError(
                        f'No resolution arrived within {within}: asking for it did not succeed in that time.'
                    ) from exc
                raise
        return asked.answer

    def check(self, resolution: ExternalEventResolution) -> None:
        """Refuse a resolution this run cannot take; nothing changes either way.

        Raises:
            ValueError: saying why in one line: a malformed token, one of another workflow or run, an unknown or
                ended wait, a payload the wait refuses, or a resolution with both a payload and a failure;
                `WaitNotReached` for the run's next wait.
        """
        self._find(resolution)

    def submit(self, resolution: ExternalEventResolution) -> None:
        """`settle`, or, for the run's next wait which it has not reached yet, hold `resolution` until it does.

        Raises:
            ValueError: as `check` (the next wait already has a resolution held, too).
        """
        try:
            self.settle(resolution)
        except WaitNotReached:
            key = decode_token(resolution.token).key
            if key in self._held:
                raise ValueError(f'The wait {key!r} of this run already has a resolution waiting for it.') from None
            self._held[key] = resolution

    def settle(self, resolution: ExternalEventResolution) -> None:
        """End the wait `resolution` names with its payload or failure (checked as `check` does).

        Raises:
            ValueError: as `check`; the wait goes on.
        """
        wait = self._find(resolution)
        caller = resolution.caller
        if resolution.failure is not None:
            wait.failure = resolution.failure
        else:
            payload: JsonValue = resolution.payload
            wait.payload = wait.credit(payload, caller) if caller is not None and wait.credit is not None else payload
        outcome = 'failed' if resolution.failure is not None else 'resolved'
        wait.settled, wait.caller = True, caller
        wait.how = f'it was {outcome}{f" by {caller!r}" if caller else ""}'
        workflow.logger.info('Wait %s: %s', wait.key, wait.how)

    def _find(self, resolution: ExternalEventResolution) -> _Wait:
        token = decode_token(resolution.token)  # InvalidToken is a ValueError
        info = workflow.info()
        if token.workflow_id != info.workflow_id:
            raise ValueError(
                f'The token is for workflow {token.workflow_id!r}, not this one ({info.workflow_id!r}): send it to '
                'the workflow it names.'
            )
        if token.run_id != info.run_id:
            raise ValueError(
                f'The token is for run {token.run_id!r} of this workflow, which is not the run now open '
                f'({info.run_id!r}): that run has ended, and its wait with it.'
            )
        wait = self._pending.get(token.key)
        if wait is None or wait.settled:
            ended = wait.how if wait is not None else self._ended.get(token.key)
            if ended is not None:
                raise ValueError(f'The wait {token.key!r} of this run has already ended: {ended}.')
            if _number(token.key) <= self._count:
                raise ValueError(f'The wait {token.key!r} of this run has already ended.')
            if _number(token.key) == self._count + 1:
                raise WaitNotReached(
                    f'This run has not reached the wait {token.key!r} yet (a worker is catching up on it after a '
                    'restart): send the resolution again in a moment.'
                )
            raise ValueError(f'This run has no wait {token.key!r}.')
        caller = resolution.caller
        if caller is not None and not (caller.strip() and len(caller) <= MAX_CALLER_CHARS):
            raise ValueError(f'The caller must name someone, in at most {MAX_CALLER_CHARS} characters.')
        if resolution.failure is not None:
            if resolution.payload is not None:
                raise ValueError('Send a payload or a failure reason, not both.')
            if not resolution.failure.strip():
                raise ValueError('The failure reason is empty: say why the wait fails (the model may read it).')
        elif wait.validate is not None:
            try:
                wait.validate(resolution.payload)
            except (ValueError, UserError) as error:
                text = error.message if isinstance(error, UserError) else str(error)
                raise ValueError(f'The payload does not fit the wait {token.key!r}: {" ".join(text.split())}') from None
        if resolution.failure is None and (refusal := self._authorize(resolution.payload, caller)) is not None:
            raise ValueError(refusal)
        return wait


def _number(key: str) -> int:
    """The `<n>` of a key `'<name>.<n>'` (0 for a key of another shape)."""
    _, _, n = key.rpartition('.')
    return int(n) if n.isdigit() else 0
