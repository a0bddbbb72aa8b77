"""`cancel_turn` stops a conversation's running turn; the conversation keeps its message and takes the next one."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow, ConversationMessage
from workflows._types import TURN_CANCELLED, CancelTurnResult

from .test_agent_workflow import AGENTS as TOOL_AGENTS
from .test_agent_workflow import wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope='session')

tool_started = asyncio.Event()
tool_cancelled = asyncio.Event()
release_tool = asyncio.Event()


def _prompts(messages: list[ModelMessage]) -> list[str]:
    return [
        str(p.content)
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, UserPromptPart)
    ]


def slow_or_recall(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Asked only 'slow': call the slow tool. Otherwise: say which prompts the history holds."""
    last = messages[-1]
    if _prompts(messages) == ['slow'] and not any(p.part_kind == 'tool-return' for p in last.parts):
        return ModelResponse(parts=[ToolCallPart('slow_tool', {}, 'slow-1')])
    return ModelResponse(parts=[TextPart(f'seen: {" / ".join(_prompts(messages))}')])


slow_agent = Agent(FunctionModel(slow_or_recall), name='slow_agent')


@slow_agent.tool_plain
async def slow_tool() -> str:
    tool_started.set()
    try:
        await release_tool.wait()  # never set by the tests: only a cancellation ends this call
    except asyncio.CancelledError:
        tool_cancelled.set()
        raise
    return 'finished'


AGENTS = {'slow_agent': slow_agent, **TOOL_AGENTS}


async def _cancel(handle: WorkflowHandle[Any, Any], reason: str | None = None) -> CancelTurnResult:
    args = [{'reason': reason}] if reason is not None else []
    return await handle.execute_update('cancel_turn', args=args, result_type=CancelTurnResult)


async def _conversation(client: Client, task_queue: str, agent: str) -> WorkflowHandle[Any, Any]:
    return await client.start_workflow(
        AgentWorkflow.run,
        AgentRunInput(agent=agent, conversation=True),
        id=f'cancel-turn-{uuid.uuid4()}',
        task_queue=task_queue,
    )


async def test_cancelling_a_turn_stops_its_tool_and_the_next_message_works(client: Client, task_queue: str) -> None:
    tool_started.clear()
    tool_cancelled.clear()
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await _conversation(client, task_queue, 'slow_agent')
        turn = asyncio.create_task(
            handle.execute_update('send_message', ConversationMessage('slow'), result_type=AgentRunOutput)
        )
        await asyncio.wait_for(tool_started.wait(), 5)
        cancelled = await _cancel(handle, 'the user pressed stop')
        with pytest.raises(WorkflowUpdateFailedError) as failed:
            await asyncio.wait_for(turn, 5)
        await asyncio.wait_for(tool_cancelled.wait(), 5)  # the activity hears of it at its next heartbeat
        status = await wait_for_status(handle, 'awaiting_message')
        after = await handle.execute_update('send_message', ConversationMessage('next'), result_type=AgentRunOutput)
        await handle.signal(AgentWorkflow.close_conversation)
        final: AgentRunOutput = await handle.result()
    assert cancelled == CancelTurnResult(cancelled=True)
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == TURN_CANCELLED
    assert cause.message.startswith('The turn was cancelled: the user pressed stop.')
    assert status.step == 1  # the model request that asked for the tool had completed
    # The cancelled turn's message stayed in the conversation: the next turn's model sees it.
    assert after.output == 'seen: slow / next'
    # The cancelled turn's unanswered request goes out with this turn (the model gets the two merged), so this
    # turn's new messages are that request, its own and the answer.
    assert [m.kind for m in final.new_messages] == ['request', 'request', 'response']
    assert _prompts(final.new_messages) == ['slow', 'next']


async def test_cancelling_a_turn_drops_its_pending_approvals(client: Client, task_queue: str) -> None:
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='approval_agent', prompt='clean up', conversation=True),
            id=f'cancel-turn-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        await wait_for_status(handle, 'awaiting_deferred_tools')
        cancelled = await _cancel(handle)
        pending = await handle.query(AgentWorkflow.pending_deferred_tools)
        status = await handle.query(AgentWorkflow.status)
        with pytest.raises(WorkflowUpdateFailedError) as late:
            await handle.execute_update(AgentWorkflow.resolve_deferred_tools, {'approvals': {'del-a': True}})
        await handle.signal(AgentWorkflow.close_conversation)
        await handle.result()
    assert cancelled.cancelled
    assert pending is None
    assert status.state == 'awaiting_message'
    assert 'No tool calls are waiting' in str(late.value.cause)


async def test_cancelling_when_no_turn_runs_says_so(client: Client, task_queue: str) -> None:
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await _conversation(client, task_queue, 'slow_agent')
        await wait_for_status(handle, 'awaiting_message')
        cancelled = await _cancel(handle)
        await handle.signal(AgentWorkflow.close_conversation)
        await handle.result()
    assert cancelled == CancelTurnResult(cancelled=False)


async def test_cancel_turn_on_a_run_that_is_not_a_conversation_is_rejected_with_what_to_do(
    client: Client, task_queue: str
) -> None:
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='approval_agent', prompt='clean up'),
            id=f'cancel-turn-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        with pytest.raises(WorkflowUpdateFailedError) as rejected:
            await _cancel(handle)
        status = await wait_for_status(handle, 'awaiting_deferred_tools')
        await handle.terminate()
    assert 'not a conversation' in str(rejected.value.cause)
    assert 'temporal workflow cancel' in str(rejected.value.cause)
    assert status.state == 'awaiting_deferred_tools'  # the run went on
