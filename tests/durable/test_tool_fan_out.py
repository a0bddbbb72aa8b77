"""Bounded fan-out on a real dev server: a response of hundreds of tool calls runs a few at a time, in call order.

In-flight tool activities are counted from the run's history (each `ActivityTaskScheduled` of a tool call until its
`ActivityTaskCompleted`, `Failed`, `TimedOut` or `Canceled`). Local activities leave only a marker when they end,
so for them the tool itself counts the calls running at once.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowFailureError, WorkflowHistory
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import PatchActivationInput

from activities._names import call_tool_activity_name
from agent import Agent, UserError
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from agent.models.function import AgentInfo, FunctionModel
from tests.mcp._servers import InProcessServer, build_app
from worker import build_replayer, build_worker
from workflows import ActivityOptions, AgentRunInput, AgentRunOutput, AgentWorkflow, DurableAgent, _registry
from workflows._fan_out import DEFAULT_MAX_TOOL_CALLS_IN_FLIGHT, TOOL_FAN_OUT_PATCH

pytestmark = pytest.mark.asyncio(loop_scope='session')

LIMIT = 20
ENDED = {
    EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: 'activity_task_completed_event_attributes',
    EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED: 'activity_task_failed_event_attributes',
    EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT: 'activity_task_timed_out_event_attributes',
    EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED: 'activity_task_canceled_event_attributes',
}


def call_id(i: int) -> str:
    return f'c{i:04d}'


def request_parts(messages: list[ModelMessage]) -> list[Any]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts]


def fan_out(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Asks for as many `echo` calls as the prompt says, all in its first response; then counts the results.

    Calls the run refused (past a cap) are asked for again, as many per response as the retry prompts allow.
    """
    first = messages[0]
    assert isinstance(first, ModelRequest)
    if len(messages) == 1:
        calls = int(str(first.parts[-1].content))
        return ModelResponse(parts=[ToolCallPart('echo', {'i': i}, call_id(i)) for i in range(calls)])
    parts = request_parts(messages)
    asked = {c.tool_call_id for m in messages if isinstance(m, ModelResponse) for c in m.tool_calls}
    refused = [p for p in parts if isinstance(p, RetryPromptPart) and f'again-{p.tool_call_id}' not in asked]
    if refused:
        cap = re.search(r'at most (\d+) run', str(refused[0].content))
        assert cap is not None
        again = [ToolCallPart('echo', {'i': int(p.tool_call_id[1:])}, f'again-{p.tool_call_id}') for p in refused]
        return ModelResponse(parts=again[: int(cap[1])])
    returns = [p for p in parts if isinstance(p, ToolReturnPart)]
    return ModelResponse(parts=[TextPart(f'{len(returns)} results')])


@dataclass
class Gauge:
    """Counts the tool calls running at once in this process (the worker runs here)."""

    running: int = 0
    peak: int = 0
    calls: int = 0

    async def hold(self, seconds: float) -> None:
        self.running += 1
        self.calls += 1
        self.peak = max(self.peak, self.running)
        try:
            await asyncio.sleep(seconds)  # the tool's own work: long enough for calls started together to overlap
        finally:
            self.running -= 1


gauge = Gauge()
WORK_SECONDS = 0.0


fan_out_agent = Agent(FunctionModel(fan_out), name='fan_out')


@fan_out_agent.tool_plain
async def echo(i: int) -> int:
    """Echo a number."""
    await gauge.hold(WORK_SECONDS)
    return i


@dataclass
class Recorded:
    """A finished run and its history."""

    output: AgentRunOutput
    history: WorkflowHistory

    @property
    def history_bytes(self) -> int:
        """The history as JSON (payloads base64-encoded), as `tests/durable/test_history_growth.py` counts it."""
        return len(self.history.to_json())

    @property
    def history_proto_bytes(self) -> int:
        """The history as the server stores it (what Temporal's 50 MB limit counts)."""
        return sum(event.ByteSize() for event in self.history.events)


async def run(client: Client, task_queue: str, prompt: str, agent: str = 'fan_out', **fields: Any) -> Recorded:
    handle = await client.start_workflow(
        AgentWorkflow.run,
        AgentRunInput(agent=agent, prompt=prompt, **fields),
        id=f'fan-out-{uuid.uuid4()}',
        task_queue=task_queue,
    )
    output: AgentRunOutput = await asyncio.wait_for(handle.result(), 60)
    return Recorded(output, await handle.fetch_history())


def tool_activities(history: WorkflowHistory, agent: str = 'fan_out') -> tuple[int, list[str]]:
    """The most tool activities in flight at once, and the activity ids of the tool calls in the order scheduled."""
    name = call_tool_activity_name(agent)
    open_ids: set[int] = set()
    peak = 0
    scheduled: list[str] = []
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attributes = event.activity_task_scheduled_event_attributes
            if attributes.activity_type.name == name:
                open_ids.add(event.event_id)
                scheduled.append(attributes.activity_id)
                peak = max(peak, len(open_ids))
        elif (field := ENDED.get(event.event_type)) is not None:
            open_ids.discard(getattr(event, field).scheduled_event_id)
    assert not open_ids
    return peak, scheduled


async def replay_failure(history: WorkflowHistory, durable: DurableAgent) -> Exception | None:
    """Replay `history` as a worker serving `durable` would (the replayer registers it for any task queue)."""
    try:
        result = await build_replayer({'fan_out': durable}).replay_workflow(history, raise_on_replay_failure=False)
    finally:
        _registry.unregister('fan_out')
    return result.replay_failure


@pytest_asyncio.fixture(scope='module', loop_scope='session')
async def bounded(temporal_env: WorkflowEnvironment) -> AsyncIterator[dict[int, Recorded]]:
    """Runs whose one response asks for 100 and for 500 tool calls, under a limit of 20 in flight."""
    client, task_queue = temporal_env.client, f'fan-out-{uuid.uuid4().hex[:8]}'
    durable = DurableAgent(fan_out_agent, max_tool_calls_in_flight=LIMIT)
    async with build_worker(client, {'fan_out': durable}, task_queue=task_queue):
        runs: dict[int, Recorded] = {}
        for calls in (100, 500):
            started = time.monotonic()
            runs[calls] = await run(client, task_queue, str(calls))
            print(f'{calls} calls: {time.monotonic() - started:.1f} s')
        yield runs


async def test_a_500_call_response_keeps_at_most_20_tool_activities_in_flight(bounded: dict[int, Recorded]) -> None:
    recorded = bounded[500]
    assert recorded.output.output == '500 results'
    peak, scheduled = tool_activities(recorded.history)
    assert peak == LIMIT
    # Scheduled in call order: the first 20 together, then each as one running ended.
    assert [activity_id.rsplit('.', 1)[1] for activity_id in scheduled] == [call_id(i) for i in range(500)]


async def test_the_results_of_a_bounded_fan_out_reach_the_model_in_call_order(bounded: dict[int, Recorded]) -> None:
    messages = bounded[500].output.new_messages
    answer = messages[2]
    assert isinstance(answer, ModelRequest)
    assert [(p.tool_call_id, p.content) for p in answer.parts if isinstance(p, ToolReturnPart)] == [
        (call_id(i), i) for i in range(500)
    ]
    assert len(answer.parts) == 500


async def test_history_grows_linearly_with_the_calls_of_one_response(bounded: dict[int, Recorded]) -> None:
    per_call_100 = bounded[100].history_bytes / 100
    per_call_500 = bounded[500].history_bytes / 500
    proto_100, proto_500 = bounded[100].history_proto_bytes / 100, bounded[500].history_proto_bytes / 500
    print(f'history bytes per call: JSON {per_call_100:.0f} (100 calls), {per_call_500:.0f} (500 calls); '
          f'protobuf {proto_100:.0f}, {proto_500:.0f}')  # fmt: skip
    # The run's fixed cost (start, two model requests) spreads over more calls, so a call costs a little less.
    assert 0.8 * per_call_100 < per_call_500 <= per_call_100


async def test_a_bounded_run_replays_without_nondeterminism(bounded: dict[int, Recorded]) -> None:
    durable = DurableAgent(fan_out_agent, max_tool_calls_in_flight=LIMIT)
    assert await replay_failure(bounded[500].history, durable) is None


async def test_local_tool_activities_keep_at_most_20_calls_running(client: Client, task_queue: str) -> None:
    global WORK_SECONDS
    durable = DurableAgent(fan_out_agent, tool_activity=ActivityOptions(local=True), max_tool_calls_in_flight=LIMIT)
    gauge.peak = gauge.calls = 0
    WORK_SECONDS = 0.06  # unbounded, ~60 of the 500 calls overlap (the worker starts local activities ~1 ms apart)
    try:
        async with build_worker(client, {'fan_out': durable}, task_queue=task_queue):
            recorded = await run(client, task_queue, '500')
    finally:
        WORK_SECONDS = 0.0
    assert recorded.output.output == '500 results'
    assert gauge.calls == 500
    # No tool call ran past the limit, and calls did run side by side (a worker runs 100 local activities at once).
    assert 1 < gauge.peak <= LIMIT
    markers = [e for e in recorded.history.events if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED]
    assert len(markers) >= 500


async def test_a_run_input_sets_its_own_limit(client: Client, task_queue: str) -> None:
    async with build_worker(client, {'fan_out': fan_out_agent}, task_queue=task_queue):
        recorded = await run(client, task_queue, '40', max_tool_calls_in_flight=5)
        by_default = await run(client, task_queue, '40')
    assert recorded.output.output == by_default.output.output == '40 results'
    assert tool_activities(recorded.history)[0] == 5
    assert tool_activities(by_default.history)[0] == DEFAULT_MAX_TOOL_CALLS_IN_FLIGHT == 32


async def test_a_cap_runs_the_first_calls_and_asks_the_model_for_the_rest_in_fewer(
    client: Client, task_queue: str
) -> None:
    async with build_worker(client, {'fan_out': fan_out_agent}, task_queue=task_queue):
        recorded = await run(client, task_queue, '30', max_tool_calls_per_response=10)
    messages = recorded.output.new_messages
    answer = messages[2]
    assert isinstance(answer, ModelRequest)
    returned = [p for p in answer.parts if isinstance(p, ToolReturnPart)]
    refused = [p for p in answer.parts if isinstance(p, RetryPromptPart)]
    assert [p.tool_call_id for p in returned] == [call_id(i) for i in range(10)]
    assert [p.tool_call_id for p in refused] == [call_id(i) for i in range(10, 30)]
    in_order = [p.tool_call_id for p in answer.parts if isinstance(p, ToolReturnPart | RetryPromptPart)]
    assert in_order == [call_id(i) for i in range(30)]
    assert len(answer.parts) == 30
    assert refused[0].content == (
        'Not run: this response asked for 30 tool calls, and at most 10 run per response; this was call 11 of 30. '
        'Ask for it again in a later response, with at most 10 tool calls in each response.'
    )
    assert 'call 30 of 30' in str(refused[-1].content)
    # The model asked again, ten at a time, and every call ran once.
    _, scheduled = tool_activities(recorded.history)
    assert len(scheduled) == 30
    assert recorded.output.output == '30 results'
    assert recorded.output.usage.tool_calls == 30


async def test_mcp_tool_calls_are_bounded_too(client: Client, task_queue: str) -> None:
    app, _ = build_app()

    def add_many(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('add', {'a': i, 'b': 1}, call_id(i)) for i in range(30)])
        returns = [p.content for p in request_parts(messages) if isinstance(p, ToolReturnPart)]
        return ModelResponse(parts=[TextPart(' '.join(map(str, returns)))])

    agent = Agent(FunctionModel(add_many), name='mcp_fan_out', toolsets=[InProcessServer(app, id='everything')])
    durable = DurableAgent(agent, max_tool_calls_in_flight=4)
    async with build_worker(client, {'mcp_fan_out': durable}, task_queue=task_queue):
        recorded = await run(client, task_queue, 'add', agent='mcp_fan_out')
    assert recorded.output.output == ' '.join(str(i + 1) for i in range(30))
    peak, scheduled = tool_activities(recorded.history, 'mcp_fan_out')
    assert peak == 4
    assert [activity_id.rsplit('.', 1)[1] for activity_id in scheduled] == [call_id(i) for i in range(30)]


async def test_a_run_recorded_before_bounded_fan_out_replays_as_it_ran(client: Client, task_queue: str) -> None:
    """A worker that does not take the patch schedules every call at once, as runs did before the limit existed;
    its history replays on a worker that bounds new runs, because the replay finds no patch marker."""

    def without_the_patch(patch: PatchActivationInput) -> bool:
        return patch.patch_id != TOOL_FAN_OUT_PATCH

    durable = DurableAgent(fan_out_agent, max_tool_calls_in_flight=5)
    async with build_worker(
        client, {'fan_out': durable}, task_queue=task_queue, patch_activation_callback=without_the_patch
    ):
        recorded = await run(client, task_queue, '40')
    assert tool_activities(recorded.history)[0] == 40
    assert await replay_failure(recorded.history, durable) is None


@pytest.mark.parametrize('option', ['max_tool_calls_in_flight', 'max_tool_calls_per_response'])
async def test_a_limit_below_one_is_refused_when_the_worker_is_built(client: Client, option: str) -> None:
    limits: dict[str, Any] = {option: 0}
    durable = DurableAgent(fan_out_agent, **limits)
    with pytest.raises(UserError) as refused:
        async with build_worker(client, {'fan_out': durable}, task_queue='never-polled'):
            pass
    assert str(refused.value) == f"Agent 'fan_out': {option} must be a whole number of at least 1, not 0"


@pytest.mark.parametrize('option', ['max_tool_calls_in_flight', 'max_tool_calls_per_response'])
async def test_a_run_input_limit_below_one_fails_the_run_at_once(client: Client, task_queue: str, option: str) -> None:
    limits: dict[str, Any] = {option: 0}
    async with build_worker(client, {'fan_out': fan_out_agent}, task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='fan_out', prompt='3', **limits),
            id=f'fan-out-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        with pytest.raises(WorkflowFailureError) as failed:
            await asyncio.wait_for(handle.result(), 30)
    message = str(failed.value.cause)
    assert (
        f"The AgentWorkflow input is invalid: {option} must be at least 1, got 0 (leave it out for the agent's own)."
        in message
    )
    assert '\n' not in message
    history = await handle.fetch_history()
    # It failed in its first workflow task, which was not retried, and nothing ran.
    types = [e.event_type for e in history.events]
    assert EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED not in types
    assert EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED not in types
