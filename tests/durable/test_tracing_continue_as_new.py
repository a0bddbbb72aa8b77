"""A run that continues as new in the middle of a turn is still one `invoke_agent` span over all its work."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from temporalio.client import Client

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from tests.instrumentation._otel import Telemetry
from worker import build_worker
from workflows.client import AgentClient

from ._traces import SeenSpan, Trace

pytestmark = pytest.mark.asyncio(loop_scope='session')

STEPS = 5


def _one_tool_call_per_step(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    done = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    if len(done) < STEPS:
        return ModelResponse(parts=[ToolCallPart('step', {'n': len(done)}, f'step-{len(done)}')])
    return ModelResponse(parts=[TextPart(','.join(str(p.content) for p in done))])


async def test_a_run_continued_as_new_mid_turn_is_one_run_span_over_every_step_exactly_once(
    client: Client, task_queue: str
) -> None:
    telemetry = Telemetry.create()
    agent = Agent(FunctionModel(_one_tool_call_per_step), name='hopping', instrument=telemetry.settings())

    @agent.tool_plain
    def step(n: int) -> str:
        return f'did{n}'

    agents = AgentClient(client, task_queue=task_queue, tracer_provider=telemetry.tracer_provider)
    async with build_worker(
        client, {'hopping': agent}, task_queue=task_queue, tracer_provider=telemetry.tracer_provider
    ):
        handle = await agents.start('hopping', 'go', max_steps_per_run=2)
        output = await asyncio.wait_for(handle.result(), 60)
        workflow_runs = [run async for run in client.list_workflows(f'WorkflowId = "{handle.id}"')]
    assert output.output == 'did0,did1,did2,did3,did4'
    assert len(workflow_runs) > 2  # the turn really was split over several workflow runs

    trace = Trace(SeenSpan.from_sdk(span) for span in telemetry.spans())
    trace.assert_each_span_once()
    assert trace.genai_counts() == {
        'invoke_agent hopping': 1,
        'chat function:_one_tool_call_per_step:': 6,
        'execute_tool step': 5,
    }
    run: Any = trace.one('invoke_agent')
    # Every model request and tool call, whichever workflow run scheduled it, nests under the one run span.
    for span in [*trace.named('chat '), *trace.named('execute_tool ')]:
        assert trace.genai_parent(span) == 'invoke_agent hopping'
        assert run.span_id in {s.span_id for s in _lineage(trace, span)}
    assert len(trace.named('RunWorkflow:')) == len(workflow_runs)


def _lineage(trace: Trace, span: SeenSpan) -> list[SeenSpan]:
    found: list[SeenSpan] = []
    current = trace.parent(span)
    while current is not None:
        found.append(current)
        current = trace.parent(current)
    return found
