"""`agent.external_events`: a run waits for an answer by a resume token that code anywhere in the process resolves."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from pydantic import JsonValue

from agent._durable_unit import durable_unit_scope, in_durable_unit
from agent._ports import RunPorts, use_ports
from agent.exceptions import UserError
from agent.external_events import (
    ExternalEventError,
    ExternalEventWaiter,
    external_event_scope,
    fail_external_event,
    resolve_external_event,
    wait_for_external_event,
)

WAIT = 5.0
"""The bound on every wait for a condition."""


class Tokens:
    """An `ask` that hands its token out and answers nothing, and a way to await that token."""

    def __init__(self) -> None:
        self.tokens: list[str] = []
        self.handed_out = asyncio.Event()

    def __call__(self, token: str) -> None:
        self.tokens.append(token)
        self.handed_out.set()

    async def next(self) -> str:
        await asyncio.wait_for(self.handed_out.wait(), WAIT)
        return self.tokens[-1]


@dataclass
class Decision:
    approved: bool
    by: str


async def test_an_answer_from_ask_is_returned_in_its_json_form_without_waiting() -> None:
    async def ask(token: str) -> Decision:
        return Decision(approved=True, by='policy')

    assert await wait_for_external_event('review', ask=ask) == {'approved': True, 'by': 'policy'}


async def test_a_sync_ask_runs_in_a_worker_thread_as_a_durable_unit() -> None:
    seen: list[tuple[int, bool]] = []

    def ask(token: str) -> str:
        seen.append((threading.get_ident(), in_durable_unit()))
        return 'yes'

    assert await wait_for_external_event('review', ask=ask) == 'yes'
    assert seen == [(seen[0][0], True)]
    assert seen[0][0] != threading.get_ident()
    assert not in_durable_unit()


async def test_the_wait_returns_the_payload_another_task_resolves_the_token_with() -> None:
    ask = Tokens()
    wait = asyncio.create_task(wait_for_external_event('review', ask=ask))
    token = await ask.next()
    assert re.fullmatch(r'[A-Za-z0-9_-]{32,}', token)
    assert not wait.done()

    resolve_external_event(token, Decision(approved=False, by='alice'))

    assert await asyncio.wait_for(wait, WAIT) == {'approved': False, 'by': 'alice'}


async def test_a_token_is_resolved_from_another_thread() -> None:
    ask = Tokens()
    wait = asyncio.create_task(wait_for_external_event('review', ask=ask))
    token = await ask.next()

    resolver = threading.Thread(target=resolve_external_event, args=(token, [1, 2]))
    resolver.start()
    try:
        assert await asyncio.wait_for(wait, WAIT) == [1, 2]
    finally:
        resolver.join(WAIT)


async def test_each_wait_gets_its_own_token() -> None:
    first, second = Tokens(), Tokens()
    waits = [
        asyncio.create_task(wait_for_external_event('a', ask=first)),
        asyncio.create_task(wait_for_external_event('b', ask=second)),
    ]
    tokens = [await first.next(), await second.next()]
    assert tokens[0] != tokens[1]

    resolve_external_event(tokens[1], 'second')
    resolve_external_event(tokens[0], 'first')

    assert await asyncio.wait_for(asyncio.gather(*waits), WAIT) == ['first', 'second']


async def test_a_failed_token_raises_external_event_error_with_the_reason() -> None:
    ask = Tokens()
    wait = asyncio.create_task(wait_for_external_event('review', ask=ask))

    fail_external_event(await ask.next(), 'The reviewer is on leave.')

    with pytest.raises(ExternalEventError, match=r'The reviewer is on leave\.'):
        await asyncio.wait_for(wait, WAIT)


async def test_resolving_a_token_twice_or_after_its_wait_ended_raises_user_error() -> None:
    ask = Tokens()
    wait = asyncio.create_task(wait_for_external_event('review', ask=ask))
    token = await ask.next()
    resolve_external_event(token, 'first')

    with pytest.raises(UserError, match='No wait in this process has this token'):
        resolve_external_event(token, 'second')
    with pytest.raises(UserError, match='No wait in this process has this token'):
        fail_external_event(token, 'too late')
    assert await asyncio.wait_for(wait, WAIT) == 'first'
    with pytest.raises(UserError, match='No wait in this process has this token'):
        resolve_external_event(token, 'third')


def test_an_unknown_token_raises_user_error() -> None:
    with pytest.raises(UserError, match='No wait in this process has this token'):
        resolve_external_event('no-such-token', {})
    with pytest.raises(UserError, match='No wait in this process has this token'):
        fail_external_event('no-such-token', 'why')


async def test_exactly_one_of_many_concurrent_resolvers_wins() -> None:
    ask = Tokens()
    wait = asyncio.create_task(wait_for_external_event('review', ask=ask))
    token = await ask.next()
    start = threading.Barrier(8)
    won: list[int] = []
    lost: list[int] = []

    def resolve(n: int) -> None:
        start.wait(WAIT)
        try:
            resolve_external_event(token, n)
        except UserError:
            lost.append(n)
        else:
            won.append(n)

    threads = [threading.Thread(target=resolve, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)

    assert len(won) == 1
    assert sorted(won + lost) == list(range(8))
    assert await asyncio.wait_for(wait, WAIT) == won[0]


async def test_a_payload_without_a_json_form_is_refused_and_the_wait_goes_on() -> None:
    ask = Tokens()
    wait = asyncio.create_task(wait_for_external_event('review', ask=ask))
    token = await ask.next()

    with pytest.raises(UserError, match='must have a JSON form'):
        resolve_external_event(token, object())
    assert not wait.done()

    resolve_external_event(token, 'ok')
    assert await asyncio.wait_for(wait, WAIT) == 'ok'


async def test_an_answer_from_ask_without_a_json_form_raises_user_error() -> None:
    with pytest.raises(UserError, match='must have a JSON form'):
        await wait_for_external_event('review', ask=lambda token: object())


async def test_the_timeout_ends_the_wait_and_its_token() -> None:
    ask = Tokens()

    with pytest.raises(ExternalEventError, match=r'No resolution arrived within 0:00:00\.05'):
        await wait_for_external_event('review', ask=ask, timeout=timedelta(milliseconds=50))

    with pytest.raises(UserError, match='No wait in this process has this token'):
        resolve_external_event(ask.tokens[0], 'late')


async def test_the_timeout_also_bounds_an_async_ask() -> None:
    cancelled = asyncio.Event()

    async def ask(token: str) -> str:
        try:
            await asyncio.Event().wait()
        finally:
            cancelled.set()
        return 'never'

    with pytest.raises(ExternalEventError):
        await wait_for_external_event('review', ask=ask, timeout=timedelta(milliseconds=50))
    assert cancelled.is_set()


async def test_a_timeout_error_raised_by_ask_itself_propagates() -> None:
    async def ask(token: str) -> str:
        raise TimeoutError('the chat service timed out')

    with pytest.raises(TimeoutError, match='the chat service timed out'):
        await wait_for_external_event('review', ask=ask, timeout=timedelta(seconds=WAIT))


@pytest.mark.parametrize('timeout', [timedelta(0), timedelta(seconds=-1)])
async def test_a_timeout_that_is_not_positive_is_refused(timeout: timedelta) -> None:  # noqa: ASYNC109
    with pytest.raises(UserError, match='`timeout` must be positive'):
        await wait_for_external_event('review', ask=lambda token: 'x', timeout=timeout)


async def test_a_cancelled_wait_forgets_its_token() -> None:
    ask = Tokens()
    wait = asyncio.create_task(wait_for_external_event('review', ask=ask))
    token = await ask.next()

    wait.cancel()
    with pytest.raises(asyncio.CancelledError):
        await wait

    with pytest.raises(UserError, match='No wait in this process has this token'):
        resolve_external_event(token, 'late')


async def test_a_wait_inside_ask_is_refused() -> None:
    async def ask(token: str) -> JsonValue:
        return await wait_for_external_event('nested', ask=lambda inner: 'x')

    with pytest.raises(UserError, match=r'called inside a durable unit.*`RequestInput`'):
        await wait_for_external_event('review', ask=ask)


async def test_a_wait_inside_a_durable_unit_is_refused_before_ask_is_called() -> None:
    ask = Tokens()

    with durable_unit_scope(), pytest.raises(UserError, match='called inside a durable unit'):
        await wait_for_external_event('review', ask=ask)
    assert ask.tokens == []


@dataclass
class RecordingWaiter(ExternalEventWaiter):
    """A stand-in for a durable engine's waiter: its own token, and a record of what it was asked."""

    answer: JsonValue
    calls: list[tuple[str, timedelta | None, JsonValue]]

    # Pydantic AI's signature, on purpose: without this project's `validate` and `credit`.
    async def wait(  # pyright: ignore[reportIncompatibleMethodOverride]
        self,
        name: str,
        *,
        ask: Callable[[str], Awaitable[JsonValue]],
        timeout: timedelta | None,  # noqa: ASYNC109 - the interface under test
    ) -> JsonValue:
        asked = await ask(f'engine:{name}')
        self.calls.append((name, timeout, asked))
        return self.answer if asked is None else asked


async def test_a_waiter_installed_with_external_event_scope_takes_the_waits_inside_it() -> None:
    waiter = RecordingWaiter(answer={'from': 'engine'}, calls=[])
    tokens: list[str] = []

    def ask(token: str) -> None:
        tokens.append(token)

    with external_event_scope(waiter) as installed:
        assert installed is waiter
        got = await wait_for_external_event('approve_refund', ask=ask, timeout=timedelta(hours=1))

    assert got == {'from': 'engine'}
    assert tokens == ['engine:approve_refund']
    assert waiter.calls == [('approve_refund', timedelta(hours=1), None)]
    # Outside the scope, waits are in process again.
    assert await wait_for_external_event('review', ask=lambda token: 'here') == 'here'


async def test_a_run_bound_elsewhere_refuses_to_wait_until_its_engine_installs_a_waiter() -> None:
    ask = Tokens()

    with use_ports(RunPorts()):
        with pytest.raises(UserError, match='not available in a durable run yet'):
            await wait_for_external_event('review', ask=ask)
        assert ask.tokens == []

        with external_event_scope(RecordingWaiter(answer='recorded', calls=[])):
            assert await wait_for_external_event('review', ask=ask) == 'recorded'


def test_waits_work_on_any_event_loop_of_any_thread() -> None:
    results: list[Any] = []

    def in_thread() -> None:
        async def main() -> None:
            ask = Tokens()
            wait = asyncio.create_task(wait_for_external_event('review', ask=ask))
            token = await ask.next()
            await asyncio.to_thread(resolve_external_event, token, 'from a thread of its own')
            results.append(await asyncio.wait_for(wait, WAIT))

        asyncio.run(main())

    thread = threading.Thread(target=in_thread)
    thread.start()
    thread.join(WAIT * 2)
    assert results == ['from a thread of its own']


def must_be_approval(payload: JsonValue) -> None:
    if not isinstance(payload, dict) or 'approved' not in payload:
        raise ValueError('an answer is {"approved": true|false}')


async def test_a_payload_the_wait_refuses_is_refused_to_its_resolver_and_the_wait_goes_on() -> None:
    ask = Tokens()
    wait = asyncio.create_task(wait_for_external_event('review', ask=ask, validate=must_be_approval))
    token = await ask.next()

    with pytest.raises(UserError, match=r'The payload does not fit the wait: an answer is \{"approved"'):
        resolve_external_event(token, 'yes')
    resolve_external_event(token, {'approved': True})

    assert await asyncio.wait_for(wait, WAIT) == {'approved': True}


async def test_a_resolver_that_names_itself_is_credited_by_the_wait() -> None:
    ask = Tokens()

    def credit(payload: JsonValue, caller: str) -> JsonValue:
        return {**payload, 'by': caller} if isinstance(payload, dict) else payload

    wait = asyncio.create_task(wait_for_external_event('review', ask=ask, credit=credit))
    resolve_external_event(await ask.next(), {'approved': True}, caller='alice')

    assert await asyncio.wait_for(wait, WAIT) == {'approved': True, 'by': 'alice'}


async def test_a_waiter_written_for_pydantic_ais_signature_gets_its_payload_checked_once_it_returns() -> None:
    with external_event_scope(RecordingWaiter(answer='yes', calls=[])):
        with pytest.raises(UserError, match='The payload does not fit the wait'):
            await wait_for_external_event('review', ask=lambda token: None, validate=must_be_approval)
        got = await wait_for_external_event('review', ask=lambda token: {'approved': False}, validate=must_be_approval)
    assert got == {'approved': False}
