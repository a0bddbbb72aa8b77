"""A durable turn's events reach the chat server's hub while the activities run, and a retry replaces its text."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

import pytest
from starlette.applications import Starlette
from temporalio import activity
from temporalio.client import Client
from temporalio.common import RetryPolicy

from agent import Agent
from agent.messages import ModelMessage, PartDeltaEvent, PartStartEvent, TextPart, TextPartDelta
from agent.models.function import AgentInfo, FunctionModel
from doors.chat import (
    TURN_EVENTS_PATH,
    HttpPublisher,
    InMemoryPublisher,
    StreamRestarted,
    TurnEventHub,
    TurnEventPublisher,
    turn_events_route,
)
from tests.chat._events import rest
from tests.mcp._servers import serve_http
from worker import build_worker
from workflows import ActivityOptions, AgentRunInput, AgentRunOutput, AgentWorkflow, DurableAgent

pytestmark = pytest.mark.asyncio(loop_scope='session')

BOUND = 10.0
TOKEN = 'relay-token'


@asynccontextmanager
async def publisher_to(hub: TurnEventHub, transport: str) -> AsyncIterator[TurnEventPublisher]:
    """A publisher into `hub`: directly, or through the chat server's route on a loopback port."""
    if transport == 'memory':
        yield InMemoryPublisher(hub)
        return
    app = Starlette(routes=[turn_events_route(hub, TOKEN)])
    async with serve_http(app) as base, HttpPublisher(base + TURN_EVENTS_PATH, TOKEN) as publisher:
        yield publisher


def text_of(event: object) -> str | None:
    if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
        return event.part.content
    if isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
        return event.delta.content_delta
    return None


@pytest.mark.parametrize('transport', ['memory', 'http'])
async def test_a_subscriber_sees_the_models_text_before_the_model_activity_completes(
    client: Client, task_queue: str, transport: str
) -> None:
    hub, gate = TurnEventHub(), asyncio.Event()
    made: dict[str, float] = {}

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for piece in ('Streaming ', 'live', ' and more'):
            made[piece] = time.perf_counter()
            yield piece
        await gate.wait()  # the activity cannot complete before the test opens the gate
        yield '.'

    agent = Agent(FunctionModel(stream_function=stream), name='relay_streamer')
    workflow_id = f'relay-{uuid.uuid4()}'
    reader = hub.subscribe(workflow_id)
    async with publisher_to(hub, transport) as publisher:
        durable = DurableAgent(agent, event_stream_handler=publisher)
        async with build_worker(client, {'relay_streamer': durable}, task_queue=task_queue):
            handle = await client.start_workflow(
                AgentWorkflow.run,
                AgentRunInput(agent='relay_streamer', prompt='Hi'),
                id=workflow_id,
                task_queue=task_queue,
            )
            seen: list[str] = []
            delays: list[float] = []
            async with asyncio.timeout(BOUND):
                while seen != ['Streaming ', 'live', ' and more']:
                    if (text := text_of(await anext(reader))) is not None:
                        delays.append(time.perf_counter() - made[text])
                        seen.append(text)
            pending = (await handle.describe()).raw_description.pending_activities
            assert [a.activity_id for a in pending] == ['1.1.model']
            assert not gate.is_set()
            gate.set()
            result: AgentRunOutput = await handle.result()
    hub.end_turn(workflow_id)
    assert result.output == 'Streaming live and more.'
    assert [text_of(event) for event in await rest(reader) if text_of(event) is not None] == ['.']
    print(f'{transport}: delta to subscriber ' + ', '.join(f'{delay * 1000:.2f} ms' for delay in delays))


async def test_a_retried_model_request_shows_only_the_latest_attempts_text(client: Client, task_queue: str) -> None:
    hub, seen_first_attempt = TurnEventHub(), asyncio.Event()

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        if activity.info().attempt == 1:
            yield 'Lost '
            yield 'words '
            await seen_first_attempt.wait()
            raise ConnectionResetError('The provider dropped the connection.')
        yield 'Kept '
        yield 'text.'

    agent = Agent(FunctionModel(stream_function=stream), name='relay_retrier')
    durable = DurableAgent(
        agent,
        event_stream_handler=InMemoryPublisher(hub),
        model_activity=ActivityOptions(retry_policy=RetryPolicy(initial_interval=timedelta(milliseconds=50))),
    )
    workflow_id = f'relay-{uuid.uuid4()}'
    reader = hub.subscribe(workflow_id)
    async with build_worker(client, {'relay_retrier': durable}, task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run, AgentRunInput(agent='relay_retrier', prompt='Hi'), id=workflow_id, task_queue=task_queue
        )
        first_attempt: list[str] = []
        async with asyncio.timeout(BOUND):
            while first_attempt != ['Lost ', 'words ']:
                if (text := text_of(await anext(reader))) is not None:
                    first_attempt.append(text)
            seen_first_attempt.set()
            # The reader saw attempt 1's text: when attempt 2 streams, it is told to start over.
            with pytest.raises(StreamRestarted):
                await rest(reader)
        result: AgentRunOutput = await handle.result()
    assert result.output == 'Kept text.'
    assert {record.attempt for record in hub.buffered(workflow_id)} == {2}
    hub.end_turn(workflow_id)
    replayed = [text_of(event) for event in await rest(hub.subscribe(workflow_id))]
    assert [text for text in replayed if text is not None] == ['Kept ', 'text.']
