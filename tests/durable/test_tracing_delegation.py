"""A run delegated by a tool (a child `AgentWorkflow`) is traced under the tool call that started it: one trace for
the parent and the child, each span exported once however often their workflows replay."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from temporalio.client import Client

from agent import Agent
from tests.instrumentation._otel import Telemetry
from worker import build_worker
from workflows.client import AgentClient

from ._approvals import wait_for_approval
from ._traces import SeenSpan, Trace
from .delegation_agents import agents_of, approving_researcher, researcher

pytestmark = pytest.mark.asyncio(loop_scope='session')


def traced(child: Agent[None, str], telemetry: Telemetry) -> dict[str, Any]:
    """The router and `child`, both recording to `telemetry`."""
    agents = agents_of(child)
    for agent in agents.values():
        agent.instrument = telemetry.settings()
    return agents


def assert_the_child_run_is_under_the_tool_call_that_started_it(trace: Trace, parent_id: str) -> None:
    trace.assert_each_span_once()
    assert trace.named('StartChildWorkflow') == []  # starting the child records no span of its own
    router, child = trace.one('invoke_agent router'), trace.one('invoke_agent researcher')
    # The child run's span sits under its workflow's span, itself under the tool call's span, as in process.
    assert trace.ancestors(child)[:3] == [
        'RunWorkflow:AgentWorkflow',
        'execute_tool ask_researcher',
        'invoke_agent router',
    ]
    child_workflow = trace.parent(child)
    assert child_workflow is not None
    tool = trace.parent(child_workflow)
    assert tool is not None
    assert trace.parent(tool) == router
    # It is the round of the tool call that called `run(...)`: its activity named the child
    # (`<parent>.<activity>.agent0`), and handing the run over is no failure. The next round (the same call, getting
    # the child's result) is the child's sibling.
    assert tool.attributes['gen_ai.tool.call.id'] == 'p-1'
    child_id = child_workflow.attributes['temporalWorkflowID']
    assert child_id == f'{parent_id}.{tool.attributes["temporalActivityID"]}.agent0'
    rounds = trace.named('execute_tool ask_researcher')
    assert [span.error for span in rounds] == [False, False]
    (after,) = [span for span in rounds if span != tool]
    assert after.attributes['gen_ai.tool.call.id'] == 'p-1'
    assert trace.parent(after) == router
    # The child's own model requests and tool calls are its run's, each in the child's workflow.
    child_calls = [s for s in trace.spans if s.attributes.get('gen_ai.agent.name') == 'researcher' and s != child]
    assert len(child_calls) == 4  # two model requests, two tool calls
    for span in child_calls:
        assert trace.genai_parent(span) == 'invoke_agent researcher'
        assert span.attributes['temporalWorkflowID'] == child_id


REPLAYS: dict[str, dict[str, Any]] = {
    'no workflow cache': {'max_cached_workflows': 0},
    'no workflow cache, no sandbox': {'max_cached_workflows': 0, 'sandboxed': False},
}


@pytest.mark.parametrize('replays', list(REPLAYS))
async def test_a_delegated_run_is_traced_under_the_tool_call_that_started_it_each_span_once(
    client: Client, task_queue: str, replays: str
) -> None:
    telemetry = Telemetry.create()
    agents = AgentClient(client, task_queue=task_queue, tracer_provider=telemetry.tracer_provider)
    # No workflow cache: every workflow task of the parent and of the child replays its workflow from the start.
    async with build_worker(
        client,
        traced(researcher(), telemetry),
        task_queue=task_queue,
        tracer_provider=telemetry.tracer_provider,
        **REPLAYS[replays],
    ):
        handle = await agents.start('router', 'Why are there tides?', workflow_id=f'router-{uuid.uuid4()}')
        output = await asyncio.wait_for(agents.result(handle.id), 30)
    assert output.output == 'tides follow the moon + twice a day'

    # Every span of the parent and the child is one trace, the client's start at its root.
    trace = Trace(SeenSpan.from_sdk(span) for span in telemetry.spans())
    assert trace.ancestors(trace.one('invoke_agent router')) == [
        'RunWorkflow:AgentWorkflow',
        'StartWorkflow:AgentWorkflow',
    ]
    assert trace.genai_counts() == {
        'invoke_agent router': 1,
        'invoke_agent researcher': 1,
        'chat function:respond:': 4,
        'execute_tool ask_researcher': 2,
        'execute_tool lookup': 1,
        'execute_tool measure': 1,
    }
    assert_the_child_run_is_under_the_tool_call_that_started_it(trace, handle.id)


async def test_a_child_run_waiting_for_an_approval_across_a_worker_restart_stays_under_its_tool_call(
    client: Client, task_queue: str
) -> None:
    telemetry = Telemetry.create()
    agents = AgentClient(client, task_queue=task_queue, tracer_provider=telemetry.tracer_provider)

    def new_worker() -> Any:
        return build_worker(
            client,
            traced(approving_researcher(), telemetry),
            task_queue=task_queue,
            tracer_provider=telemetry.tracer_provider,
        )

    async with new_worker():
        handle = await agents.start('router', 'Why are there tides?', workflow_id=f'router-{uuid.uuid4()}')
        await wait_for_approval(agents, handle.id)  # the child's approval, listed at the parent
    # A new worker (an empty cache) rebuilds both runs from their histories and ends their spans.
    async with new_worker():
        await agents.approve(handle.id, approvals={'p-1/r-2': True})
        output = await asyncio.wait_for(agents.result(handle.id), 30)
    assert output.output == 'tides follow the moon + published'

    spans = [SeenSpan.from_sdk(span) for span in telemetry.spans()]
    run = next(span for span in spans if span.name == 'invoke_agent router')
    # The answer is the client's update, a trace of its own; everything of the two runs is the run's trace.
    trace = Trace(span for span in spans if span.trace_id == run.trace_id)
    assert [
        s.name
        for s in spans
        if s.trace_id != run.trace_id and s.name.startswith(('invoke_agent', 'chat', 'execute_tool'))
    ] == []
    assert trace.genai_counts() == {
        'invoke_agent router': 1,
        'invoke_agent researcher': 1,
        'chat function:respond:': 4,
        'execute_tool ask_researcher': 2,
        'execute_tool lookup': 1,
        'execute_tool publish': 1,
    }
    assert_the_child_run_is_under_the_tool_call_that_started_it(trace, handle.id)
