"""Cancelling a durable run cancels the activity that is running and ends the run as cancelled."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import CancelledError

from agent import Agent, RunContext
from agent.messages import ToolCallPart
from worker import build_worker
from workflows import AgentRunInput, AgentWorkflow

from .test_agent_workflow import scripted

pytestmark = pytest.mark.asyncio(loop_scope='session')

started = asyncio.Event()
cancelled = asyncio.Event()
outcomes: list[str] = []

waiting_agent = Agent(scripted(ToolCallPart('wait_forever', {}, 'w-1')), name='waiting_agent')


@waiting_agent.tool
async def wait_forever(ctx: RunContext[None]) -> str:
    started.set()
    try:
        await asyncio.Event().wait()  # until cancelled
    except asyncio.CancelledError:
        outcomes.append(f'cancelled {ctx.tool_call_id}')
        cancelled.set()
        raise
    return 'never'


async def test_cancelling_the_workflow_cancels_the_running_tool(client: Client, task_queue: str) -> None:
    started.clear()
    cancelled.clear()
    outcomes.clear()
    async with build_worker(client, {'waiting_agent': waiting_agent}, task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='waiting_agent', prompt='go'),
            id=f'cancel-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        await asyncio.wait_for(started.wait(), 5)
        await handle.cancel()
        with pytest.raises(WorkflowFailureError) as info:
            await handle.result()
        await asyncio.wait_for(cancelled.wait(), 5)  # the activity sees the cancel at its next heartbeat
    assert isinstance(info.value.cause, CancelledError)
    assert outcomes == ['cancelled w-1']
