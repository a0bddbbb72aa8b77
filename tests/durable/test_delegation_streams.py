"""A tool that runs another agent with `iter`, `run_stream` or `run_stream_events` (instead of `run`), written once
and run both ways: in process, and durably, where the other agent's run is a child workflow of the parent's."""

from __future__ import annotations

import uuid

import pytest
from temporalio.client import Client

from agent import Agent
from worker import build_worker
from workflows import AgentRunOutput
from workflows.client import AgentClient

from .delegation_agents import ASKS, failing_researcher, researcher, streaming_router, sync_streaming_router
from .test_delegation import ANSWER, _children

pytestmark = pytest.mark.asyncio(loop_scope='session')


@pytest.mark.parametrize('how', sorted(ASKS))
async def test_a_tool_streaming_or_iterating_another_agent_runs_it_as_a_child_run_with_the_same_result(
    client: Client, task_queue: str, how: str
) -> None:
    child = researcher()
    parent: Agent[None, str] = streaming_router(child, how)
    in_process = await parent.run('Why are there tides?')
    async with build_worker(client, {'router': parent, 'researcher': child}, task_queue=task_queue):
        agents = AgentClient(client, task_queue=task_queue)
        handle = await agents.start('router', 'Why are there tides?', workflow_id=f'router-{uuid.uuid4()}')
        durable = await agents.result(handle.id)
        children = await _children(client, handle.id)
        child_output = await client.get_workflow_handle(children[0], result_type=AgentRunOutput).result()

    # The tool saw the same result both ways (output, streams, nodes or last event, messages, usage so far).
    assert durable.output == in_process.output
    assert durable.output.startswith(f'{ANSWER} | ')
    assert durable.usage == in_process.usage()
    assert durable.usage.requests == 4  # two of the router's, two of the researcher's: the child's counted once
    # The child ran as a workflow of its own, under the id derived from the tool call's activity.
    assert children == [f'{handle.id}.1.1.tool.p-1.agent0']
    assert child_output.output == ANSWER


@pytest.mark.parametrize('how', sorted(ASKS))
async def test_a_failing_child_raises_its_error_in_a_tool_streaming_or_iterating_it_as_in_process(
    client: Client, task_queue: str, how: str
) -> None:
    child = failing_researcher()
    parent: Agent[None, str] = streaming_router(child, how)
    in_process = await parent.run('Why are there tides?')
    async with build_worker(client, {'router': parent, 'researcher': child}, task_queue=task_queue):
        agents = AgentClient(client, task_queue=task_queue)
        handle = await agents.start('router', 'Why are there tides?', workflow_id=f'router-{uuid.uuid4()}')
        durable = await agents.result(handle.id)
        children = await _children(client, handle.id)
    assert durable.output == in_process.output
    assert durable.output.startswith('The researcher failed: ')
    assert len(children) == 1


async def test_run_stream_sync_in_a_sync_tool_delegates_too(client: Client, task_queue: str) -> None:
    child = researcher()
    parent = sync_streaming_router(child)
    in_process = await parent.run('Why are there tides?')
    async with build_worker(client, {'router': parent, 'researcher': child}, task_queue=task_queue):
        agents = AgentClient(client, task_queue=task_queue)
        handle = await agents.start('router', 'Why are there tides?')
        durable = await agents.result(handle.id)
        children = await _children(client, handle.id)
    assert durable.output == in_process.output == f'{ANSWER} | 4 messages'
    assert len(children) == 1
