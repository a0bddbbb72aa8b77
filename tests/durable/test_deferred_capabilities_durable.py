"""A deferred capability in a durable run: loaded through `load_capability` in the workflow, its tool then
running in an activity and its activity-side hook firing only once the load is recorded."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from temporalio.client import Client

from agent import Agent, ModelRequestContext, RunContext
from agent.capabilities import Capability, Hooks
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows import AgentRunInput, AgentWorkflow

pytestmark = pytest.mark.asyncio(loop_scope='session')


def lookup_order(order_id: str) -> str:
    """Look up an order."""
    return f'{order_id}: shipped'


def load_then_use(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    returned = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    done = {p.tool_name: p for p in returned}
    if 'load_capability' not in done:
        return ModelResponse(parts=[ToolCallPart('load_capability', {'id': 'refunds'}, tool_call_id='load')])
    if 'lookup_order' not in done:
        return ModelResponse(parts=[ToolCallPart('lookup_order', {'order_id': 'o-1'}, tool_call_id='look')])
    return ModelResponse(parts=[TextPart(f'answer: {done["lookup_order"].content}')])


async def test_a_deferred_capability_loads_in_the_workflow_and_its_tool_and_hooks_then_work(
    client: Client, task_queue: str
) -> None:
    hook_steps: list[int] = []
    audit = Hooks[None](id='audit', defer_loading=True)

    @audit.on.before_model_request  # an I/O hook: it runs in the model activity
    async def record(ctx: RunContext[None], request_context: ModelRequestContext) -> ModelRequestContext:
        hook_steps.append(ctx.run_step)
        return request_context

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        response = load_then_use(messages, info)
        if len(messages) == 1:  # also load the audit hooks with the first call
            load_audit = ToolCallPart('load_capability', {'id': 'audit'}, tool_call_id='load-audit')
            return ModelResponse(parts=[*response.parts, load_audit])
        return response

    refunds = Capability[None](
        id='refunds',
        description='Refund tools.',
        instructions='Quote the policy.',
        tools=[lookup_order],
        defer_loading=True,
    )
    agent = Agent(FunctionModel(model), name='deferred_caps', capabilities=[refunds, audit])
    async with build_worker(client, {'deferred_caps': agent}, task_queue=task_queue):
        output = await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='deferred_caps', prompt='Where is my refund?'),
            id=f'deferred-caps-{uuid.uuid4()}',
            task_queue=task_queue,
        )

    assert output.output == 'answer: o-1: shipped'
    loads: list[Any] = [
        p.content for m in output.new_messages for p in m.parts if p.part_kind == 'tool-return' and p.tool_kind
    ]
    assert loads == [{'instructions': 'Quote the policy.'}, {}]
    # The hooks were not loaded for the first request, then fired for the two after it.
    assert hook_steps == [2, 3]
    first = output.new_messages[0]
    assert isinstance(first, ModelRequest)
    assert first.instructions is not None
    assert first.instructions.endswith('- refunds: Refund tools.\n- audit')
