"""`HttpPublisher` and `turn_events_route`: an activity's events from the worker to the chat server over HTTP."""

from __future__ import annotations

import asyncio
import dataclasses
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from temporalio.testing import ActivityEnvironment

from agent import RunContext
from agent.models.test import TestModel
from agent.usage import RunUsage
from doors.chat import TURN_EVENTS_PATH, HttpPublisher, StreamRestarted, TurnEventHub, turn_events_route
from doors.chat._turn_events import encode_turn_event
from tests.mcp._servers import serve_http

from ._events import BOUND, describe, rest, streamed, take, text_event

TOKEN = 'worker-secret'


async def as_activity(publisher: HttpPublisher, activity_id: str, pieces: list[str], attempt: int = 1) -> None:
    """Run the publisher as a model activity's event stream handler, with `pieces` as the streamed text."""
    env = ActivityEnvironment()
    env.info = dataclasses.replace(env.info, workflow_id='conv', activity_id=activity_id, attempt=attempt)

    async def events() -> AsyncIterator[Any]:
        for seq, piece in enumerate(pieces):
            yield text_event(seq, piece)

    ctx = RunContext(deps=None, model=TestModel(), usage=RunUsage())
    await env.run(publisher, ctx, events())


def free_url() -> str:
    """A loopback URL nobody listens on."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return f'http://127.0.0.1:{sock.getsockname()[1]}{TURN_EVENTS_PATH}'


async def test_an_activitys_events_reach_a_hub_subscriber_in_order_through_the_chat_servers_route() -> None:
    hub = TurnEventHub()
    app = Starlette(routes=[turn_events_route(hub, TOKEN)])
    async with serve_http(app) as base:
        reader = hub.subscribe('conv')
        async with HttpPublisher(base + TURN_EVENTS_PATH, TOKEN) as publisher:
            await as_activity(publisher, '1.1.model', ['Hel', 'lo', ' world'])
            # The activity ended once its events were in the hub.
            assert describe(record.event for record in hub.buffered('conv')) == ['text:Hel', 'text:lo', 'text: world']
            assert describe(await take(reader, 3)) == ['text:Hel', 'text:lo', 'text: world']
            await as_activity(publisher, '1.1.model', ['Hello again'], attempt=2)
        assert publisher.sent == 4
    with pytest.raises(StreamRestarted):
        await take(reader, 1)
    hub.end_turn('conv')
    assert describe(await rest(hub.subscribe('conv'))) == ['text:Hello again']
    assert [(r.activity_id, r.attempt, r.seq, r.run_id) for r in hub.buffered('conv')] == [
        ('1.1.model', 2, 0, 'test-run')
    ]


async def test_a_chat_server_that_is_down_costs_the_activity_nothing_and_its_events_are_dropped() -> None:
    async with HttpPublisher(free_url(), TOKEN, retry_after=60) as publisher:
        started = time.monotonic()
        await as_activity(publisher, '1.1.model', [f'piece {n} ' for n in range(500)])
        await as_activity(publisher, '1.2.model', ['more'])
        elapsed = time.monotonic() - started
    print(f'two activities with the chat server down took {elapsed * 1000:.1f} ms')
    assert (publisher.sent, publisher.dropped) == (0, 501)


async def test_a_wrong_token_is_refused_and_the_activity_goes_on() -> None:
    hub = TurnEventHub()
    app = Starlette(routes=[turn_events_route(hub, TOKEN)])
    async with serve_http(app) as base, HttpPublisher(base + TURN_EVENTS_PATH, 'guess') as publisher:
        await as_activity(publisher, '1.1.model', ['secret'])
    assert (publisher.sent, publisher.dropped) == (0, 1)
    assert hub.buffered('conv') == []


async def test_a_slow_chat_server_fills_a_bounded_queue_and_the_rest_is_dropped() -> None:
    answer, holding, second = asyncio.Event(), asyncio.Event(), asyncio.Event()
    arrived: list[bytes] = []

    async def slow(request: Request) -> Response:
        arrived.append(await request.body())
        (second if len(arrived) == 2 else holding).set()
        await answer.wait()
        return Response(status_code=204)

    app = Starlette(routes=[Route(TURN_EVENTS_PATH, slow, methods=['POST'])])
    async with serve_http(app) as base, HttpPublisher(base + TURN_EVENTS_PATH, TOKEN, max_queue=10) as publisher:
        first = asyncio.create_task(as_activity(publisher, '1.1.model', ['first']))
        async with asyncio.timeout(BOUND):
            await holding.wait()  # the first batch is out and the server holds it
            await as_activity(publisher, '1.2.model', [str(n) for n in range(100)])
            await first
            answer.set()
            await second.wait()
    assert [body.count(b'\n') for body in arrived] == [1, 10]
    assert publisher.dropped == 90


async def test_the_route_refuses_what_is_not_a_bounded_batch_of_turn_events() -> None:
    hub = TurnEventHub()
    auth = {'authorization': f'Bearer {TOKEN}'}
    line = b''.join(encode_turn_event(record) for record in streamed('1.1.model', 'ok', workflow_id='c'))
    app = Starlette(routes=[turn_events_route(hub, TOKEN, max_body_bytes=1000)])
    async with serve_http(app) as base, httpx2.AsyncClient(base_url=base) as http:
        assert (await http.post(TURN_EVENTS_PATH, content=line)).status_code == 401
        assert (await http.post(TURN_EVENTS_PATH, content=b'x' * 1001, headers=auth)).status_code == 413
        refused = await http.post(TURN_EVENTS_PATH, content=line + b'{"not": "an event"}\n', headers=auth)
        assert refused.status_code == 400
        assert hub.buffered('c') == []
        assert (await http.post(TURN_EVENTS_PATH, content=line, headers=auth)).status_code == 204
    assert describe(record.event for record in hub.buffered('c')) == ['text:ok']
