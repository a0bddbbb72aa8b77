"""Agent runs as `AgentWorkflow` on a real Temporal dev server: tools as activities, approvals by signal/update."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from temporalio.client import Client, WorkflowFailureError, WorkflowUpdateFailedError

from agent import Agent, DeferredToolRequests, DeferredToolResults, RunContext, ToolDenied
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow, RunStatus

pytestmark = pytest.mark.asyncio(loop_scope='session')


@dataclass
class Account:
    owner: str


def scripted(*calls: ToolCallPart) -> FunctionModel:
    """Calls the tools once, then summarizes the results it got back."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=list(calls))
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        summary = '; '.join(f'{p.tool_name}={p.content}' for p in last.parts if isinstance(p, ToolReturnPart))
        return ModelResponse(parts=[TextPart(summary)])

    return FunctionModel(respond)


tool_log: list[tuple[str, Any]] = []

lookup_agent: Agent[Account, str] = Agent(
    scripted(ToolCallPart('lookup', {'key': 'balance'}, 'c1'), ToolCallPart('owner', {}, 'c2')),
    deps_type=Account,
    name='lookup_agent',
)


@lookup_agent.tool
def lookup(ctx: RunContext[Account], key: str) -> str:
    tool_log.append(('lookup', ctx.tool_call_id))
    return f'{key} of {ctx.deps.owner}: 42'


@lookup_agent.tool
async def owner(ctx: RunContext[Account]) -> str:
    return ctx.deps.owner


approval_agent = Agent(
    scripted(
        ToolCallPart('delete_file', {'path': 'a.txt'}, 'del-a'), ToolCallPart('delete_file', {'path': 'b.txt'}, 'del-b')
    ),
    name='approval_agent',
)


@approval_agent.tool_plain(requires_approval=True)
def delete_file(path: str) -> str:
    tool_log.append(('delete_file', path))
    return f'deleted {path}'


end_style_agent: Agent[None, Any] = Agent(
    scripted(ToolCallPart('delete_file', {'path': 'c.txt'}, 'del-c')),
    name='end_style_agent',
    output_type=[str, DeferredToolRequests],
)
end_style_agent.tool_plain(requires_approval=True)(delete_file)

AGENTS = {'lookup_agent': lookup_agent, 'approval_agent': approval_agent, 'end_style_agent': end_style_agent}


async def wait_for_status(handle: Any, state: str) -> RunStatus:
    async with asyncio.timeout(5):
        while True:
            status: RunStatus = await handle.query(AgentWorkflow.status)
            if status.state == state:
                return status
            await asyncio.sleep(0.05)


async def test_tools_run_as_activities_and_the_result_comes_back(client: Client, task_queue: str) -> None:
    tool_log.clear()
    async with build_worker(client, AGENTS, task_queue=task_queue):
        result: AgentRunOutput = await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='lookup_agent', prompt='What is my balance?', deps={'owner': 'ada'}),
            id=f'run-{uuid.uuid4()}',
            task_queue=task_queue,
        )
    assert result.output == 'lookup=balance of ada: 42; owner=ada'
    assert tool_log == [('lookup', 'c1')]
    assert [m.kind for m in result.new_messages] == ['request', 'response', 'request', 'response']
    assert result.usage.requests == 2
    assert result.usage.tool_calls == 2
    assert result.run_id
    assert result.conversation_id


async def test_approvals_wait_durably_and_resolve_in_parts(client: Client, task_queue: str) -> None:
    tool_log.clear()
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='approval_agent', prompt='clean up'),
            id=f'run-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        await wait_for_status(handle, 'awaiting_deferred_tools')
        pending = await handle.query(AgentWorkflow.pending_deferred_tools)
        assert pending is not None
        assert [c.tool_call_id for c in pending.approvals] == ['del-a', 'del-b']

        with pytest.raises(WorkflowUpdateFailedError):
            await handle.execute_update(
                AgentWorkflow.resolve_deferred_tools, DeferredToolResults(approvals={'ghost': True})
            )

        still = await handle.execute_update(
            'resolve_deferred_tools',
            DeferredToolResults(approvals={'del-b': ToolDenied('keep b')}),
            result_type=DeferredToolRequests,
        )
        assert still is not None
        assert [c.tool_call_id for c in still.approvals] == ['del-a']
        with pytest.raises(WorkflowUpdateFailedError):
            await handle.execute_update(
                AgentWorkflow.resolve_deferred_tools, DeferredToolResults(approvals={'del-b': True})
            )

        await handle.signal(AgentWorkflow.submit_deferred_tool_results, DeferredToolResults(approvals={'del-a': True}))
        result: AgentRunOutput = await handle.result()
        status: RunStatus = await handle.query(AgentWorkflow.status)
    assert result.output == 'delete_file=deleted a.txt; delete_file=keep b'
    assert tool_log == [('delete_file', 'a.txt')]
    assert status.state == 'completed'


async def test_end_the_run_style_returns_requests_and_a_second_run_resumes(client: Client, task_queue: str) -> None:
    tool_log.clear()
    async with build_worker(client, AGENTS, task_queue=task_queue):
        first: AgentRunOutput = await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='end_style_agent', prompt='clean up'),
            id=f'run-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        assert isinstance(first.output, dict)
        requests = DeferredToolRequests(**first.output)  # the output travels as JSON
        assert [c['tool_call_id'] for c in requests.approvals] == ['del-c']  # type: ignore[index]
        second: AgentRunOutput = await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(
                agent='end_style_agent',
                message_history=first.new_messages,
                deferred_tool_results=DeferredToolResults(approvals={'del-c': True}),
            ),
            id=f'run-{uuid.uuid4()}',
            task_queue=task_queue,
        )
    assert second.output == 'delete_file=deleted c.txt'
    assert tool_log == [('delete_file', 'c.txt')]


async def test_unknown_agent_fails_the_workflow_with_a_clear_error(client: Client, task_queue: str) -> None:
    async with build_worker(client, AGENTS, task_queue=task_queue):
        with pytest.raises(WorkflowFailureError) as info:
            await client.execute_workflow(
                AgentWorkflow.run,
                AgentRunInput(agent='nope'),
                id=f'run-{uuid.uuid4()}',
                task_queue=task_queue,
            )
    assert "No agent is registered as 'nope'" in str(info.value.cause)
