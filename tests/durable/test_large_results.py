"""A run whose new messages pass Temporal's payload limit still completes; every message stays reachable."""

from __future__ import annotations

import uuid

import pytest
from temporalio.client import Client

from agent import Agent
from agent.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows import AgentRunOutput, AgentWorkflow, MessagePage
from workflows._result_size import RESULT_MESSAGES_BUDGET, fit_result, message_page
from workflows.client import AgentClient

CHUNK = 400_000
STEPS = 4


def dump_steps(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    done = sum(isinstance(p, ToolReturnPart) for m in messages if isinstance(m, ModelRequest) for p in m.parts)
    if done < STEPS:
        return ModelResponse(parts=[ToolCallPart('dump', {'step': done}, f'dump-{done}')])
    return ModelResponse(parts=[TextPart(f'dumped {done}')])


dumper = Agent(FunctionModel(dump_steps), name='dumper')


@dumper.tool_plain
def dump(step: int) -> str:
    """Return a large block."""
    return str(step) * CHUNK


@pytest.mark.asyncio(loop_scope='session')
async def test_a_result_over_the_budget_keeps_the_newest_messages_and_pages_the_rest(
    client: Client, task_queue: str
) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    async with build_worker(client, {'dumper': dumper}, task_queue=task_queue):
        handle = await agents.start('dumper', 'dump it', workflow_id=f'dump-{uuid.uuid4()}')
        raw: AgentRunOutput = await handle.result()
        full = await agents.result(handle.id)
        first_page = await handle.query(AgentWorkflow.new_messages, MessagePage(offset=0, limit=1))
    assert raw.output == full.output == f'dumped {STEPS}'
    # 4 x 400 KB of tool results do not fit in the result: the oldest messages were left out of it...
    assert raw.earlier_messages_omitted > 0
    kept = sum(len(p.content) for m in raw.new_messages for p in m.parts if isinstance(p, ToolReturnPart))
    assert kept <= RESULT_MESSAGES_BUDGET
    # ...and the client helper paged them back in: the whole run, in order.
    assert full.earlier_messages_omitted == 0
    assert len(full.new_messages) == raw.earlier_messages_omitted + len(raw.new_messages)
    returns = [p for m in full.new_messages for p in m.parts if isinstance(p, ToolReturnPart)]
    assert [r.content[:1] for r in returns] == ['0', '1', '2', '3']
    assert all(len(r.content) == CHUNK for r in returns)
    assert len(first_page) == 1
    assert isinstance(first_page[0], ModelRequest)


def test_small_results_are_returned_whole() -> None:
    output = AgentRunOutput(output='ok', new_messages=[ModelResponse(parts=[TextPart('ok')])])
    assert fit_result(output) is output


def test_a_page_stops_before_passing_the_budget_but_always_holds_one_message() -> None:
    messages: list[ModelMessage] = [ModelResponse(parts=[TextPart('x' * 600)]) for _ in range(5)]
    size = len(ModelMessagesTypeAdapter.dump_json(messages[:1])) - 2  # one message, without the list's brackets
    assert len(message_page(messages, MessagePage(limit=5), budget=size * 2 + size // 2)) == 2
    assert len(message_page(messages, MessagePage(offset=4, limit=5), budget=10)) == 1
    with pytest.raises(ValueError, match='offset must be >= 0'):
        message_page(messages, MessagePage(offset=-1))
