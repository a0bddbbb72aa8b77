"""A durable run is one trace whose spans are each exported once, however often its workflow replays."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from temporalio.client import Client

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from tests.instrumentation._otel import Telemetry
from worker import build_worker
from workflows.client import AgentClient

from ._approvals import wait_for_approval
from ._traces import SeenSpan, Trace

pytestmark = pytest.mark.asyncio(loop_scope='session')


def _respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    returned = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    if not returned:
        return ModelResponse(
            parts=[ToolCallPart('lookup', {'key': 'a'}, 'look-1'), ToolCallPart('delete', {}, 'del-1')]
        )
    return ModelResponse(parts=[TextPart(' | '.join(str(p.content) for p in returned))])


def approval_agent(telemetry: Telemetry) -> Agent[None, Any]:
    agent = Agent(FunctionModel(_respond), name='traced', instrument=telemetry.settings())

    @agent.tool_plain
    def lookup(key: str) -> str:
        return f'found {key}'

    @agent.tool_plain(requires_approval=True)
    def delete() -> str:
        return 'deleted'

    return agent


def assert_one_trace_of_the_approval_run(trace: Trace) -> None:
    trace.assert_each_span_once()
    assert trace.genai_counts() == {
        'invoke_agent traced': 1,
        'chat function:_respond:': 2,
        'execute_tool lookup': 1,
        'execute_tool delete': 1,
    }
    run = trace.one('invoke_agent')
    assert trace.ancestors(run) == ['RunWorkflow:AgentWorkflow', 'StartWorkflow:AgentWorkflow']
    # Each model request and tool call is its activity's span: no `RunActivity` around it, Temporal's attributes on it.
    assert trace.named('RunActivity:') == []
    for span in trace.named('chat '):
        assert trace.ancestors(span)[:2] == ['invoke_agent traced', 'RunWorkflow:AgentWorkflow']
        assert span.attributes['temporalActivityID'].endswith('.model')
    for span in trace.named('execute_tool '):
        assert trace.ancestors(span)[:2] == ['invoke_agent traced', 'RunWorkflow:AgentWorkflow']
        assert '.tool.' in span.attributes['temporalActivityID']
    activity_spans = [*trace.named('chat '), *trace.named('execute_tool ')]
    assert len({span.attributes['temporalWorkflowID'] for span in activity_spans}) == 1
    # The activities' spans carry the run's attributes, as in-process.
    run_id = run.attributes['gen_ai.agent.call.id']
    assert {s.attributes['gen_ai.agent.call.id'] for s in [*trace.named('chat '), *trace.named('execute_tool ')]} == {
        run_id
    }
    assert trace.one('execute_tool delete').attributes['gen_ai.tool.call.id'] == 'del-1'
    assert run.attributes.get('gen_ai.aggregated_usage.input_tokens', 0) > 0


REPLAYS: dict[str, dict[str, Any]] = {
    'no workflow cache': {'max_cached_workflows': 0},
    'worker restarted during the approval wait': {},
    'no workflow cache, no sandbox': {'max_cached_workflows': 0, 'sandboxed': False},
}


@pytest.mark.parametrize('replays', list(REPLAYS))
async def test_a_run_with_an_approval_wait_is_one_trace_with_each_span_once(
    client: Client, task_queue: str, replays: str
) -> None:
    telemetry = Telemetry.create()
    agent = approval_agent(telemetry)
    options = REPLAYS[replays]
    agents = AgentClient(client, task_queue=task_queue, tracer_provider=telemetry.tracer_provider)

    def new_worker() -> Any:
        return build_worker(
            client, {'traced': agent}, task_queue=task_queue, tracer_provider=telemetry.tracer_provider, **options
        )

    async with new_worker():
        handle = await agents.start('traced', 'tidy up', workflow_id=f'traced-{uuid.uuid4()}')
        await wait_for_approval(agents, handle.id)
    # A new worker (an empty cache) rebuilds the run from its history before it takes the approval.
    async with new_worker():
        await agents.approve(handle.id, approvals={'del-1': True})
        output = await asyncio.wait_for(handle.result(), 30)
    assert output.output == 'found a | deleted'

    spans = [SeenSpan.from_sdk(span) for span in telemetry.spans()]
    assert_one_trace_of_the_approval_run(Trace(s for s in spans if s.trace_id == spans[0].trace_id))


async def test_a_retried_tool_shows_each_attempt_as_a_span_of_its_own(client: Client, task_queue: str) -> None:
    telemetry = Telemetry.create()
    attempts: list[int] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if not any(isinstance(p, ToolReturnPart) for m in messages if isinstance(m, ModelRequest) for p in m.parts):
            return ModelResponse(parts=[ToolCallPart('flaky', {}, 'flaky-1')])
        return ModelResponse(parts=[TextPart('done')])

    agent = Agent(FunctionModel(respond), name='retried', instrument=telemetry.settings())

    @agent.tool_plain
    def flaky() -> str:
        attempts.append(len(attempts) + 1)
        if len(attempts) == 1:
            raise ConnectionError('the service dropped the connection')
        return 'ok'

    agents = AgentClient(client, task_queue=task_queue, tracer_provider=telemetry.tracer_provider)
    async with build_worker(
        client, {'retried': agent}, task_queue=task_queue, tracer_provider=telemetry.tracer_provider
    ):
        output = await agents.run('retried', 'go')
    assert output.output == 'done'
    assert attempts == [1, 2]

    trace = Trace(SeenSpan.from_sdk(span) for span in telemetry.spans())
    trace.assert_each_span_once()
    tool_spans = trace.named('execute_tool flaky')
    assert [span.error for span in tool_spans] == [True, False]
    # Each attempt is its activity attempt's span, both children of the run's span, for the same activity.
    assert tool_spans[0].span_id != tool_spans[1].span_id
    assert [trace.ancestors(span)[:2] for span in tool_spans] == [
        ['invoke_agent retried', 'RunWorkflow:AgentWorkflow']
    ] * 2
    assert len({span.attributes['temporalActivityID'] for span in tool_spans}) == 1
    assert trace.named('RunActivity:') == []
    # The failed attempt records its exception once (the activity's opener records it, the tool span does not).
    (failed,) = [span for span in telemetry.spans() if span.context and span.context.span_id == tool_spans[0].span_id]
    assert [event.name for event in failed.events] == ['exception']
    assert 'ConnectionError: the service dropped the connection' in str(failed.status.description)


async def test_a_failed_run_records_its_failure_and_a_completed_one_no_completion_span(
    client: Client, task_queue: str
) -> None:
    from temporalio.client import WorkflowFailureError

    from agent.exceptions import UserError

    telemetry = Telemetry.create()

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if 'fail' in str(messages[0]):
            raise UserError('the model is misconfigured')
        return ModelResponse(parts=[TextPart('fine')])

    agent = Agent(FunctionModel(respond), name='ending', instrument=telemetry.settings())
    agents = AgentClient(client, task_queue=task_queue, tracer_provider=telemetry.tracer_provider)
    async with build_worker(
        client, {'ending': agent}, task_queue=task_queue, tracer_provider=telemetry.tracer_provider
    ):
        assert (await agents.run('ending', 'go')).output == 'fine'
        with pytest.raises(WorkflowFailureError):
            await agents.run('ending', 'fail')

    spans = [SeenSpan.from_sdk(span) for span in telemetry.spans()]
    by_trace: dict[int, list[SeenSpan]] = {}
    for span in spans:
        by_trace.setdefault(span.trace_id, []).append(span)
    completed, failed = sorted(by_trace.values(), key=lambda trace: any(s.error for s in trace))
    assert not [s for s in completed if s.name.startswith('CompleteWorkflow')]
    ends = [s for s in failed if s.name == 'CompleteWorkflow:AgentWorkflow']
    assert len(ends) == 1
    assert Trace(failed).ancestors(ends[0]) == ['StartWorkflow:AgentWorkflow']
    # Temporal's span carries the failure as an exception event.
    (end,) = [span for span in telemetry.spans() if span.context and span.context.span_id == ends[0].span_id]
    assert [event.name for event in end.events] == ['exception']
    assert 'misconfigured' in str((end.events[0].attributes or {}).get('exception.message'))
