"""Conversations: turns as updates to one workflow addressed by conversation id, continue-as-new with history."""

from __future__ import annotations

import uuid

import pytest
from temporalio.client import Client, WorkflowUpdateFailedError

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows import AgentRunOutput, AgentWorkflow, ConversationMessage, conversation_workflow_id
from workflows.client import AgentClient

from .test_agent_workflow import AGENTS as TOOL_AGENTS
from .test_agent_workflow import wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope='session')


def remembers(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    prompts = [
        p.content for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, UserPromptPart)
    ]
    return ModelResponse(parts=[TextPart(f'turn {len(prompts)}: {" / ".join(map(str, prompts))}')])


chat_agent = Agent(FunctionModel(remembers), name='chat_agent')
AGENTS = {'chat_agent': chat_agent, **TOOL_AGENTS}


async def test_turns_go_to_the_same_workflow_by_conversation_id(client: Client, task_queue: str) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    conversation = f'c-{uuid.uuid4()}'
    async with build_worker(client, AGENTS, task_queue=task_queue):
        first = await agents.send_message('chat_agent', conversation_id=conversation, prompt='hello')
        second = await agents.send_message('chat_agent', conversation_id=conversation, prompt='and again')
        status = await agents.status(conversation_workflow_id('chat_agent', conversation))
        await agents.close_conversation('chat_agent', conversation)
        final: AgentRunOutput = await agents.result(conversation_workflow_id('chat_agent', conversation))
    assert first.output == 'turn 1: hello'
    assert second.output == 'turn 2: hello / and again'
    assert first.conversation_id == second.conversation_id == conversation
    assert status.state == 'awaiting_message'
    assert final.output == 'turn 2: hello / and again'
    assert len(final.new_messages) == 4
    assert final.usage.requests == 2


async def test_conversation_continues_as_new_carrying_the_history(client: Client, task_queue: str) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    conversation = f'c-{uuid.uuid4()}'
    async with build_worker(client, AGENTS, task_queue=task_queue):
        outputs = [
            (
                await agents.send_message(
                    'chat_agent', conversation_id=conversation, prompt=f'm{i}', max_turns_per_run=2
                )
            ).output
            for i in range(1, 6)
        ]
        handle = client.get_workflow_handle(conversation_workflow_id('chat_agent', conversation))
        description = await handle.describe()
        await agents.close_conversation('chat_agent', conversation)
    assert outputs[-1] == 'turn 5: m1 / m2 / m3 / m4 / m5'
    # Each run holds two turns, so the latest run is not the first one.
    assert description.run_id != (await handle.describe()).raw_description.workflow_execution_info.first_run_id


async def test_messages_to_a_plain_run_are_rejected(client: Client, task_queue: str) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await agents.start('approval_agent', 'clean up')
        with pytest.raises(WorkflowUpdateFailedError):
            await handle.execute_update(AgentWorkflow.send_message, ConversationMessage('hi'))
        await handle.terminate()


async def test_client_helper_approves_and_reads_results(client: Client, task_queue: str) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await agents.start('approval_agent', 'clean up')
        await wait_for_status(handle, 'awaiting_deferred_tools')
        pending = await agents.pending(handle.id)
        assert pending is not None
        remaining = await agents.approve(handle.id, approvals={'del-a': True, 'del-b': False})
        result = await agents.result(handle.id)
    assert remaining is None
    assert result.output == 'delete_file=deleted a.txt; delete_file=The tool call was denied.'
