"""A tool that runs another agent with `iter`, `run_stream` or `run_stream_events` (instead of `run`), written once
and run both ways: in process, and durably, where the other agent's run is a child workflow of the parent's."""

from __future__ import annotations

import pytest
from temporalio.client import Client

from workflows import AgentRunOutput

from .delegation_agents import ASKS, failing_researcher, researcher, streaming_router, sync_streaming_router
from .test_delegation import ANSWER, _children, run_both_ways

pytestmark = pytest.mark.asyncio(loop_scope='session')


@pytest.mark.parametrize('how', sorted(ASKS))
async def test_a_tool_streaming_or_iterating_another_agent_runs_it_as_a_child_run_with_the_same_result(
    client: Client, task_queue: str, how: str
) -> None:
    child = researcher()
    in_process, durable, workflow_id = await run_both_ways(client, task_queue, child, streaming_router(child, how))
    children = await _children(client, workflow_id)
    child_output = await client.get_workflow_handle(children[0], result_type=AgentRunOutput).result()

    # The tool saw the same result both ways (output, streams, nodes or last event, messages, usage so far).
    assert durable.output == in_process.output
    assert durable.output.startswith(f'{ANSWER} | ')
    assert durable.usage == in_process.usage()
    assert durable.usage.requests == 4  # two of the router's, two of the researcher's: the child's counted once
    # The child ran as a workflow of its own, under the id derived from the tool call's activity.
    assert children == [f'{workflow_id}.1.1.tool.p-1.agent0']
    assert child_output.output == ANSWER


@pytest.mark.parametrize('how', sorted(ASKS))
async def test_a_failing_child_raises_its_error_in_a_tool_streaming_or_iterating_it_as_in_process(
    client: Client, task_queue: str, how: str
) -> None:
    child = failing_researcher()
    in_process, durable, workflow_id = await run_both_ways(client, task_queue, child, streaming_router(child, how))
    assert durable.output == in_process.output
    assert durable.output.startswith('The researcher failed: ')
    assert len(await _children(client, workflow_id)) == 1


async def test_run_stream_sync_in_a_sync_tool_delegates_too(client: Client, task_queue: str) -> None:
    child = researcher()
    in_process, durable, workflow_id = await run_both_ways(client, task_queue, child, sync_streaming_router(child))
    assert durable.output == in_process.output == f'{ANSWER} | 4 messages'
    assert len(await _children(client, workflow_id)) == 1
