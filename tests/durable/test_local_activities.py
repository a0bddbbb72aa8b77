"""Local activities: model requests and tool calls that run inside the workflow task, per agent or per tool."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle, WorkflowHistory
from temporalio.common import RetryPolicy

from agent import Agent, DeferredToolResults
from agent.messages import ToolCallPart
from worker import build_worker
from workflows import ActivityOptions, AgentRunInput, AgentRunOutput, AgentWorkflow, DurableAgent

from .test_agent_workflow import scripted

pytestmark = pytest.mark.asyncio(loop_scope='session')

LOCAL = ActivityOptions(local=True)


def two_tool_agent(calls: list[str]) -> Agent[None, str]:
    agent = Agent(scripted(ToolCallPart('fast', {}, 'f-1'), ToolCallPart('slow', {}, 's-1')), name='local_agent')

    @agent.tool_plain
    def fast() -> str:
        calls.append('fast')
        return 'quick'

    @agent.tool_plain
    async def slow() -> str:
        calls.append('slow')
        return 'eventually'

    return agent


LOCAL_ACTIVITY_MARKER = 'core_local_activity'


def event_types(history: WorkflowHistory) -> list[int | str]:
    """Each event's type, with a local activity's marker as `LOCAL_ACTIVITY_MARKER` (other markers: patches)."""
    return [
        LOCAL_ACTIVITY_MARKER
        if event.marker_recorded_event_attributes.marker_name == LOCAL_ACTIVITY_MARKER
        else event.event_type
        for event in history.events
    ]


async def run(client: Client, task_queue: str, durable: DurableAgent) -> tuple[AgentRunOutput, list[int | str]]:
    async with build_worker(client, {'local_agent': durable}, task_queue=task_queue):
        handle: WorkflowHandle[AgentWorkflow, AgentRunOutput] = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='local_agent', prompt='go'),
            id=f'local-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        output = await asyncio.wait_for(handle.result(), 30)
        return output, event_types(await handle.fetch_history())


async def test_a_run_of_local_activities_records_markers_and_no_activity_tasks(client: Client, task_queue: str) -> None:
    calls: list[str] = []
    durable = DurableAgent(two_tool_agent(calls), model_activity=LOCAL, tool_activity=LOCAL)
    output, events = await run(client, task_queue, durable)
    assert output.output == 'fast=quick; slow=eventually'
    assert sorted(calls) == ['fast', 'slow']
    assert EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED not in events
    # Two model requests and two tool calls, each recorded as a marker with its result.
    assert events.count(LOCAL_ACTIVITY_MARKER) == 4
    # The whole tool loop ran inside the first workflow task.
    assert events.count(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) == 1


async def test_one_tool_can_be_local_while_the_rest_are_activities(client: Client, task_queue: str) -> None:
    calls: list[str] = []
    durable = DurableAgent(two_tool_agent(calls), tool_activities={'fast': LOCAL})
    output, events = await run(client, task_queue, durable)
    assert output.output == 'fast=quick; slow=eventually'
    assert events.count(LOCAL_ACTIVITY_MARKER) == 1  # `fast`
    assert events.count(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) == 3  # two model requests and `slow`


async def test_a_failing_local_tool_is_retried_by_its_retry_policy(client: Client, task_queue: str) -> None:
    attempts: list[int] = []
    agent = Agent(scripted(ToolCallPart('flaky', {}, 'fl-1')), name='local_agent')

    @agent.tool_plain
    def flaky() -> str:
        attempts.append(len(attempts) + 1)
        if len(attempts) < 3:
            raise ConnectionError(f'attempt {len(attempts)} failed')
        return f'worked on attempt {len(attempts)}'

    retried = ActivityOptions(
        local=True, retry_policy=RetryPolicy(maximum_attempts=5, initial_interval=timedelta(milliseconds=10))
    )
    output, events = await run(client, task_queue, DurableAgent(agent, tool_activity=retried))
    assert output.output == 'flaky=worked on attempt 3'
    assert attempts == [1, 2, 3]
    assert EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED in events  # the model requests stayed activities


async def test_local_tools_run_after_an_approval(client: Client, task_queue: str) -> None:
    calls: list[str] = []
    agent = Agent(scripted(ToolCallPart('guarded', {}, 'g-1')), name='local_agent')

    @agent.tool_plain(requires_approval=True)
    def guarded() -> str:
        calls.append('guarded')
        return 'done'

    durable = DurableAgent(agent, model_activity=LOCAL, tool_activity=LOCAL)
    async with build_worker(client, {'local_agent': durable}, task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='local_agent', prompt='go'),
            id=f'local-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        for _ in range(200):  # bounded: the run reaches its approval wait on the worker
            if (await handle.query(AgentWorkflow.status)).state == 'awaiting_deferred_tools':
                break
            await asyncio.sleep(0.02)
        assert calls == []
        await handle.signal(AgentWorkflow.submit_deferred_tool_results, DeferredToolResults(approvals={'g-1': True}))
        output = await asyncio.wait_for(handle.result(), 30)
    assert output.output == 'guarded=done'
    assert calls == ['guarded']


async def test_local_activity_options_are_checked_like_the_others() -> None:
    from agent import UserError

    durable = DurableAgent(
        two_tool_agent([]), tool_activity=ActivityOptions(local=True, start_to_close_timeout=timedelta(0))
    )
    with pytest.raises(UserError, match='start_to_close_timeout must be positive'):
        durable.check('local_agent')
