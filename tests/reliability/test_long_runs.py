"""Nothing is too big to finish: large conversations and very long runs continue as new and complete."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from temporalio.client import Client

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow, MessagePage, _handoff, conversation_workflow_id
from workflows.client import AgentClient

pytestmark = pytest.mark.asyncio(loop_scope='session')

BIG = 400_000  # bytes of each big tool result: under the tool result limit, six of them over a payload's limit


def _returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]


def _big_turns(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Each turn fetches one big document, then says how many messages and documents it has seen."""
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    if not any(isinstance(p, ToolReturnPart) for p in last.parts):
        return ModelResponse(parts=[ToolCallPart('fetch', {}, f'fetch-{len(messages)}')])
    sizes = [len(str(p.content)) for p in _returns(messages)]
    return ModelResponse(parts=[TextPart(f'{len(messages)} messages, documents {sizes}')])


archivist = Agent(FunctionModel(_big_turns), name='archivist')


@archivist.tool_plain
def fetch() -> str:
    # Varied text, so the size is real on the wire whatever compresses it.
    return ''.join(f'{i:07d} ' for i in range(BIG // 8))


async def test_a_conversation_larger_than_a_payload_goes_on_across_continue_as_new(
    client: Client, task_queue: str
) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    conversation = f'big-{uuid.uuid4().hex[:8]}'
    async with build_worker(client, {'archivist': archivist}, task_queue=task_queue):
        for turn in range(1, 7):
            out = await asyncio.wait_for(
                agents.send_message(
                    'archivist', conversation_id=conversation, prompt=f'turn {turn}', max_turns_per_run=1
                ),
                60,
            )
            # Every turn the model sees the whole conversation: 4 messages a turn, and every document so far.
            assert out.output == f'{4 * turn - 1} messages, documents {[BIG] * turn}'
        handle = client.get_workflow_handle(conversation_workflow_id('archivist', conversation))
        history = await handle.fetch_history()
        await agents.close_conversation('archivist', conversation)
        await asyncio.wait_for(handle.result(), 30)
    # The last run got the conversation by reference: its input is small, and its pages are activity results.
    started = history.events[0].workflow_execution_started_event_attributes
    assert started.input.payloads[0].ByteSize() < 10_000
    assert '"history_from"' in started.input.payloads[0].data.decode()


def _long_run(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Calls `step` once per model request until it has ten results, then lists them."""
    done = _returns(messages)
    if len(done) < 10:
        return ModelResponse(parts=[ToolCallPart('step', {'n': len(done)}, f'step-{len(done)}')])
    return ModelResponse(parts=[TextPart(','.join(str(p.content)[:8] for p in done))])


marathon = Agent(FunctionModel(_long_run), name='marathon')


@marathon.tool_plain
def step(n: int) -> str:
    return f'result{n:02d}' + 'x' * 1000


@pytest.mark.parametrize('plain_budget', [_handoff.PLAIN_HISTORY_BUDGET, 2_000], ids=['plain', 'by-reference'])
async def test_a_long_run_continues_as_new_mid_run_and_finishes_as_one_run(
    client: Client, task_queue: str, monkeypatch: pytest.MonkeyPatch, plain_budget: int
) -> None:
    monkeypatch.setattr(_handoff, 'PLAIN_HISTORY_BUDGET', plain_budget)
    workflow_id = f'marathon-{uuid.uuid4().hex[:8]}'
    async with build_worker(client, {'marathon': marathon}, task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='marathon', prompt='go', max_steps_per_run=3),
            id=workflow_id,
            task_queue=task_queue,
        )
        result: AgentRunOutput = await asyncio.wait_for(handle.result(), 60)
        description = await handle.describe()
        runs = [w async for w in client.list_workflows(f'WorkflowId = "{workflow_id}"')]
        paged: list[Any] = await handle.query(AgentWorkflow.new_messages, MessagePage(offset=0, limit=100))
    assert result.output == ','.join(f'result{n:02d}' for n in range(10))
    assert result.usage.requests == 11
    assert result.usage.tool_calls == 10
    # One agent run from the prompt to the answer, whichever workflow run each step happened in.
    assert len(result.new_messages) == 22
    assert {m.run_id for m in result.new_messages} == {result.run_id}
    assert len(paged) == 22
    assert description.raw_description.workflow_execution_info.first_run_id != description.run_id
    assert len(runs) == 4  # 11 steps, 3 per workflow run
