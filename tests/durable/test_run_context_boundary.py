"""What crosses into activities: an explicit allow-list, clear errors for the rest, usage merged back."""

from __future__ import annotations

import uuid

import pytest
from temporalio.client import Client, WorkflowFailureError

from agent import Agent, RunContext, UserError
from agent.messages import ToolCallPart
from agent.usage import RunUsage, UsageLimits
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow

from .test_agent_workflow import scripted

pytestmark = pytest.mark.asyncio(loop_scope='session')

reads: list[object] = []

boundary_agent = Agent(scripted(ToolCallPart('peek', {'field': 'run_step'}, 'p-1')), name='boundary_agent')


@boundary_agent.tool
def peek(ctx: RunContext[None], field: str) -> str:
    try:
        value = getattr(ctx, field)
        reads.append(value)
        return f'{field}={value}'
    except UserError as exc:
        return f'error: {exc}'


messages_agent = Agent(scripted(ToolCallPart('peek', {'field': 'messages'}, 'p-2')), name='messages_agent')
messages_agent.tool(peek)

sub_agent = Agent('test', name='sub_agent')
parent_agent = Agent(scripted(ToolCallPart('delegate', {}, 'd-1')), name='parent_agent')


@parent_agent.tool
async def delegate(ctx: RunContext[None]) -> str:
    # A sub-agent run inside the tool's activity counts its usage into the parent's.
    result = await sub_agent.run('help', usage=ctx.usage)
    return result.output


enqueue_agent = Agent(scripted(ToolCallPart('shout', {}, 's-1')), name='enqueue_agent')


@enqueue_agent.tool
def shout(ctx: RunContext[None]) -> str:
    ctx.enqueue('hello')
    return 'done'


AGENTS = {
    'boundary_agent': boundary_agent,
    'messages_agent': messages_agent,
    'parent_agent': parent_agent,
    'enqueue_agent': enqueue_agent,
}


async def run(client: Client, task_queue: str, agent: str, **fields: object) -> AgentRunOutput:
    async with build_worker(client, AGENTS, task_queue=task_queue):
        return await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent=agent, prompt='go', **fields),  # type: ignore[arg-type]
            id=f'boundary-{uuid.uuid4()}',
            task_queue=task_queue,
        )


async def test_allowed_fields_cross_into_the_tool_activity(client: Client, task_queue: str) -> None:
    result = await run(client, task_queue, 'boundary_agent')
    assert result.output == 'peek=run_step=1'


async def test_reading_a_field_that_did_not_cross_is_a_clear_error(client: Client, task_queue: str) -> None:
    result = await run(client, task_queue, 'messages_agent')
    assert result.output.startswith('peek=error: RunContext.messages is not available inside an activity')
    assert 'deps, run_id' in result.output


async def test_usage_counted_inside_an_activity_joins_the_run(client: Client, task_queue: str) -> None:
    result = await run(client, task_queue, 'parent_agent')
    assert result.usage.requests == 3  # two of the parent's, one of the sub-agent's
    assert result.usage.tool_calls == 1


async def test_merged_usage_counts_against_the_runs_limits(client: Client, task_queue: str) -> None:
    with pytest.raises(WorkflowFailureError) as info:
        await run(client, task_queue, 'parent_agent', usage_limits=UsageLimits(request_limit=2))
    assert 'request_limit of 2' in str(info.value.cause)


async def test_enqueue_from_an_activity_explains_why_it_cannot(client: Client, task_queue: str) -> None:
    with pytest.raises(WorkflowFailureError) as info:
        await run(client, task_queue, 'enqueue_agent')
    assert 'enqueue() is not available inside an activity' in str(info.value.cause.cause)  # type: ignore[union-attr]


async def test_run_usage_snapshot_copies_are_independent() -> None:
    usage = RunUsage(requests=1)
    copy = usage + RunUsage()
    usage.requests += 1
    assert copy.requests == 1
