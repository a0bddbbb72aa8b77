"""Activity options per model and per tool, set in code and checked when the agent is registered."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowFailureError
from temporalio.common import RetryPolicy

from agent import Agent, UserError
from agent.messages import ToolCallPart
from worker import build_worker
from workflows import ActivityOptions, AgentRunInput, AgentRunOutput, AgentWorkflow, DurableAgent

from .test_agent_workflow import scripted

pytestmark = pytest.mark.asyncio(loop_scope='session')

attempts: list[int] = []


def flaky_agent() -> Agent[None, str]:
    agent = Agent(scripted(ToolCallPart('flaky', {}, 'fl-1')), name='flaky_agent')

    @agent.tool_plain
    def flaky() -> str:
        attempts.append(len(attempts) + 1)
        if len(attempts) < 4:
            raise ConnectionError(f'attempt {len(attempts)} failed')
        return f'worked on attempt {len(attempts)}'

    return agent


async def run(client: Client, task_queue: str, durable: DurableAgent) -> AgentRunOutput:
    async with build_worker(client, {'flaky_agent': durable}, task_queue=task_queue):
        return await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='flaky_agent', prompt='go'),
            id=f'options-{uuid.uuid4()}',
            task_queue=task_queue,
        )


async def test_per_tool_retry_policy_lets_a_flaky_tool_succeed(client: Client, task_queue: str) -> None:
    attempts.clear()
    options = ActivityOptions(retry_policy=RetryPolicy(maximum_attempts=5, initial_interval=timedelta(milliseconds=10)))
    result = await run(client, task_queue, DurableAgent(flaky_agent(), tool_activities={'flaky': options}))
    assert result.output == 'flaky=worked on attempt 4'
    assert attempts == [1, 2, 3, 4]


async def test_the_default_tool_policy_gives_up_after_three_attempts(client: Client, task_queue: str) -> None:
    attempts.clear()
    durable = DurableAgent(
        flaky_agent(),
        tool_activity=ActivityOptions(
            retry_policy=RetryPolicy(maximum_attempts=3, initial_interval=timedelta(milliseconds=10))
        ),
    )
    with pytest.raises(WorkflowFailureError):
        await run(client, task_queue, durable)
    assert attempts == [1, 2, 3]


async def test_options_for_a_tool_the_agent_lacks_fail_at_registration(client: Client, task_queue: str) -> None:
    durable = DurableAgent(flaky_agent(), tool_activities={'flakey': ActivityOptions()})
    with pytest.raises(UserError, match="options for tool 'flakey', but no such tool; its tools are: flaky"):
        build_worker(client, {'flaky_agent': durable}, task_queue=task_queue)


async def test_impossible_timeouts_fail_at_registration(client: Client, task_queue: str) -> None:
    durable = DurableAgent(flaky_agent(), model_activity=ActivityOptions(heartbeat_timeout=timedelta(milliseconds=500)))
    with pytest.raises(UserError, match='model_activity: heartbeat_timeout must be at least 1 second'):
        build_worker(client, {'flaky_agent': durable}, task_queue=task_queue)
    durable = DurableAgent(flaky_agent(), tool_activity=ActivityOptions(start_to_close_timeout=timedelta(0)))
    with pytest.raises(UserError, match='tool_activity: start_to_close_timeout must be positive'):
        build_worker(client, {'flaky_agent': durable}, task_queue=task_queue)


def slow_agent() -> Agent[None, str]:
    agent = Agent(scripted(ToolCallPart('slow', {}, 'sl-1')), name='slow_agent')

    @agent.tool_plain
    async def slow() -> str:
        await asyncio.sleep(1.6)
        return 'done'

    return agent


async def heartbeats_seen_by_server(client: Client, task_queue: str, durable: DurableAgent) -> tuple[set[float], float]:
    """The distinct last-heartbeat times the server records while the slow tool runs, and the call's seconds."""
    seen: set[float] = set()
    async with build_worker(client, {'slow_agent': durable}, task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='slow_agent', prompt='go'),
            id=f'heartbeats-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        result = asyncio.ensure_future(handle.result())
        while not result.done():
            description = await handle.describe()
            for pending in description.raw_description.pending_activities:
                # The tool's call only: model requests beat too.
                if pending.activity_type.name.endswith('.call_tool') and pending.HasField('last_heartbeat_time'):
                    seen.add(pending.last_heartbeat_time.ToDatetime().timestamp())
            await asyncio.sleep(0.05)
        assert (await result).output == 'slow=done'
        # How long the tool's call took as the server saw it (a busy machine stretches it).
        tool_call: set[int] = set()
        times: dict[int, float] = {}
        async for event in handle.fetch_history_events():
            attributes = event.activity_task_scheduled_event_attributes
            if attributes.activity_type.name.endswith('.call_tool'):
                tool_call.add(event.event_id)
            scheduled = (
                event.activity_task_started_event_attributes.scheduled_event_id
                or event.activity_task_completed_event_attributes.scheduled_event_id
            )
            if scheduled in tool_call:
                times[event.event_type] = event.event_time.ToDatetime().timestamp()
        started = times[EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED]
        completed = times[EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED]
    return seen, completed - started


async def test_beats_reach_the_server_four_times_per_heartbeat_timeout(client: Client, task_queue: str) -> None:
    # The SDK alone would hold beats back for 80% of the 2 s timeout (one beat in this call); a beat that
    # arrives only just in time makes a busy worker look dead.
    seen, _ = await heartbeats_seen_by_server(client, task_queue, DurableAgent(slow_agent()))
    assert len(seen) >= 3, sorted(seen)


async def test_a_longer_heartbeat_timeout_beats_less_often(client: Client, task_queue: str) -> None:
    options = ActivityOptions(heartbeat_timeout=timedelta(seconds=8))  # a beat every 2 s
    seen, took = await heartbeats_seen_by_server(client, task_queue, DurableAgent(slow_agent(), tool_activity=options))
    # One beat as the call starts, then one per 2 s it runs: one for the 1.6 s call, more only if a busy machine
    # stretched the call past 2 s (four times as many at the default timeout, see the test above).
    assert 1 <= len(seen) <= 1 + int(took // 2), (sorted(seen), took)
