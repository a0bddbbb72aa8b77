"""History stays linear: messages, tool results and tool definitions reach model activities once, then by hash."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from activities import _agent_activities as agent_activities_module
from activities._message_store import worker_store
from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from agent.usage import UsageLimits
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow, data_converter

from .test_agent_workflow import scripted

pytestmark = pytest.mark.asyncio(loop_scope='session')

STEPS = 200
PAYLOAD = 5000


def looping(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Calls `fetch` as many times as the prompt says, one call per response, then says how many results it saw."""
    first = messages[0]
    assert isinstance(first, ModelRequest)
    steps = int(str(first.parts[0].content))
    results = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    if len(results) < steps:
        return ModelResponse(parts=[ToolCallPart('fetch', {'step': len(results)}, f'fetch-{len(results)}')])
    assert all(len(str(r.content)) == PAYLOAD for r in results)
    return ModelResponse(parts=[TextPart(f'saw {len(results)} results')])


long_agent = Agent(FunctionModel(looping), name='long_agent')


@long_agent.tool_plain
def fetch(step: int) -> str:
    return str(step % 10) * PAYLOAD


forgetful_agent = Agent(scripted(ToolCallPart('forget', {}, 'f-1')), name='forgetful_agent')


@forgetful_agent.tool_plain
def forget() -> str:
    # As if the next model request landed on a worker that never saw this conversation.
    worker_store.clear()
    return 'forgot'


AGENTS = {'long_agent': long_agent, 'forgetful_agent': forgetful_agent}


async def history_bytes(client: Client, workflow_id: str) -> int:
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    return len(history.to_json())


async def run_steps(client: Client, task_queue: str, steps: int) -> tuple[AgentRunOutput, int]:
    workflow_id = f'long-{uuid.uuid4()}'
    result: AgentRunOutput = await client.execute_workflow(
        AgentWorkflow.run,
        AgentRunInput(agent='long_agent', prompt=str(steps), usage_limits=UsageLimits(request_limit=None)),
        id=workflow_id,
        task_queue=task_queue,
    )
    return result, await history_bytes(client, workflow_id)


@pytest.mark.slow(28)
async def test_a_200_step_run_with_5kb_results_completes_with_linear_history(client: Client, task_queue: str) -> None:
    async with build_worker(client, AGENTS, task_queue=task_queue):
        short, short_bytes = await run_steps(client, task_queue, 20)
        long, long_bytes = await run_steps(client, task_queue, STEPS)
    assert short.output == 'saw 20 results'
    assert long.output == f'saw {STEPS} results'
    # Linear: a step costs the same at step 200 as at step 20. Resending the conversation to every model
    # request would make the 200-step run cost ~3 KB x 200^2 = ~120 MB, far past Temporal's 50 MB limit.
    per_step_short, per_step_long = short_bytes / 20, long_bytes / STEPS
    assert per_step_long < per_step_short * 1.15
    assert long_bytes < 10_000_000


async def test_a_worker_without_the_messages_rebuilds_them_from_the_runs_history(
    client: Client, task_queue: str
) -> None:
    workflow_id = f'forget-{uuid.uuid4()}'
    async with build_worker(client, AGENTS, task_queue=task_queue):
        result: AgentRunOutput = await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='forgetful_agent', prompt='go'),
            id=workflow_id,
            task_queue=task_queue,
        )
    assert result.output == 'forget=forgot'
    # One model request per step: the worker that forgot never had to ask for the conversation again.
    assert len(await model_request_inputs(client, workflow_id)) == 2


big_result_agent = Agent(scripted(ToolCallPart('report', {}, 'r-1'), ToolCallPart('forget_big', {}, 'r-2')), name='big')


@big_result_agent.tool_plain
def report() -> str:
    """Write the report."""
    return 'R' * 3000


@big_result_agent.tool_plain
def forget_big() -> str:
    """Forget everything, then return a long result."""
    worker_store.clear()
    return 'F' * 3000


async def model_request_inputs(client: Client, workflow_id: str) -> list[dict[str, Any]]:
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    inputs: list[dict[str, Any]] = []
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attributes = event.activity_task_scheduled_event_attributes
            if attributes.activity_type.name.endswith('.model_request'):
                # Decoded as JSON whichever encoding the converter chose (large inputs are deflated).
                inputs.extend(data_converter.payload_converter.from_payloads(list(attributes.input.payloads)))
    return inputs


async def run_big(client: Client, task_queue: str) -> tuple[AgentRunOutput, list[dict[str, Any]]]:
    async with build_worker(client, {'big': big_result_agent}, task_queue=task_queue):
        workflow_id = f'refs-{uuid.uuid4()}'
        result: AgentRunOutput = await client.execute_workflow(
            AgentWorkflow.run, AgentRunInput(agent='big', prompt='go'), id=workflow_id, task_queue=task_queue
        )
        return result, await model_request_inputs(client, workflow_id)


async def test_tool_results_and_tool_definitions_reach_the_model_activity_by_reference(
    client: Client, task_queue: str
) -> None:
    result, inputs = await run_big(client, task_queue)
    # The model still saw both results in full (the script echoes them)...
    assert result.output == f'report={"R" * 3000}; forget_big={"F" * 3000}'
    # ...but the second request named the results instead of carrying them. `forget_big` had cleared the worker's
    # store, so the worker rebuilt it from the run's history rather than asking for everything again.
    first, named = inputs
    assert first['parameters_key']
    assert 'R' * 3000 not in json.dumps(named)
    assert 'F' * 3000 not in json.dumps(named)
    assert named['contents']
    assert named['parameters'] is None


async def test_when_the_history_cannot_be_read_the_request_is_sent_again_in_full(
    client: Client, task_queue: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def unreadable(*args: Any) -> bool:
        return False

    monkeypatch.setattr(agent_activities_module, 'recover_from_history', unreadable)
    result, inputs = await run_big(client, task_queue)
    assert result.output == f'report={"R" * 3000}; forget_big={"F" * 3000}'
    _, named, in_full = inputs
    assert 'R' * 3000 not in json.dumps(named)
    assert 'R' * 3000 in json.dumps(in_full)
    assert 'F' * 3000 in json.dumps(in_full)
    assert in_full['parameters'] is not None
    assert not in_full.get('contents')  # compact payloads leave out empty fields
