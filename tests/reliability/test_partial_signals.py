"""A signal's valid parts are applied and its invalid parts are listed in the run's status, never dropped whole."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.testing import WorkflowEnvironment

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from tests.durable.test_human_cli import command
from worker import build_worker
from workflows import AgentRunOutput, AgentWorkflow, RunStatus

pytestmark = pytest.mark.asyncio(loop_scope='session')


def _respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(
            parts=[ToolCallPart('delete', {'path': 'a'}, 'del-a'), ToolCallPart('delete', {'path': 'b'}, 'del-b')]
        )
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    return ModelResponse(parts=[TextPart('; '.join(str(p.content) for p in last.parts if hasattr(p, 'content')))])


cleaner = Agent(FunctionModel(_respond), name='cleaner')


@cleaner.tool_plain(requires_approval=True)
def delete(path: str) -> str:
    return f'deleted {path}'


def _tool_results(output: AgentRunOutput) -> dict[str, Any]:
    requests = [m for m in output.new_messages if isinstance(m, ModelRequest)]
    return {p.tool_call_id: p.content for m in requests for p in m.parts if isinstance(p, ToolReturnPart)}


async def _status_when(handle: WorkflowHandle[Any, Any], ready: Any) -> RunStatus:
    async with asyncio.timeout(10):
        while True:
            status: RunStatus = await handle.query(AgentWorkflow.status)
            if ready(status):
                return status
            await asyncio.sleep(0.05)


async def _start(client: Client, task_queue: str) -> WorkflowHandle[Any, Any]:
    handle = await client.start_workflow(
        'AgentWorkflow',
        {'agent': 'cleaner', 'prompt': 'clean up'},
        id=f'clean-{uuid.uuid4()}',
        task_queue=task_queue,
        result_type=AgentRunOutput,
    )
    await _status_when(handle, lambda s: s.state == 'awaiting_deferred_tools')
    return handle


async def test_a_half_valid_approval_applies_the_valid_part_and_lists_the_rest(
    temporal_env: WorkflowEnvironment, client: Client, task_queue: str
) -> None:
    async with build_worker(client, {'cleaner': cleaner}, task_queue=task_queue):
        handle = await _start(client, task_queue)
        # One pending id, one unknown id, and a malformed entry for the other pending id.
        await handle.signal('submit_deferred_tool_results', {'approvals': {'del-a': True, 'nope': True, 'del-b': 7}})
        status = await _status_when(handle, lambda s: len(s.rejected) == 2)
        assert {r.tool_call_id for r in status.rejected} == {'nope', 'del-b'}
        reasons = {r.tool_call_id: r.reason for r in status.rejected}
        assert reasons['nope'].startswith("Unknown tool call id 'nope'; pending ids: ['del-a', 'del-b']")
        assert reasons['del-b'].startswith("approvals['del-b'] is invalid: Input should be a valid boolean")
        pending = await handle.query(AgentWorkflow.pending_deferred_tools)
        assert pending is not None
        assert pending.tool_call_ids == ['del-b']  # del-a's approval was kept
        shown = await command(temporal_env, task_queue, 'status', handle.id)
        assert shown.splitlines()[1] == f'  agent version: {status.agent_version}'
        assert shown.splitlines()[2:] == [f'  rejected ({r.tool_call_id}): {r.reason}' for r in status.rejected]
        # Resolving del-a again is refused (already resolved); del-b's denial goes through.
        await handle.signal(
            'submit_deferred_tool_results', {'approvals': {'del-a': False, 'del-b': {'message': 'keep b'}}}
        )
        output: AgentRunOutput = await asyncio.wait_for(handle.result(), 10)
        status = await handle.query(AgentWorkflow.status)
    assert _tool_results(output) == {'del-a': 'deleted a', 'del-b': 'keep b'}
    assert status.state == 'completed'
    assert any(r.tool_call_id == 'del-a' and 'already resolved' in r.reason for r in status.rejected)


async def test_a_malformed_signal_or_an_unknown_one_is_listed_and_the_run_goes_on(
    client: Client, task_queue: str
) -> None:
    async with build_worker(client, {'cleaner': cleaner}, task_queue=task_queue):
        handle = await _start(client, task_queue)
        await handle.signal('submit_deferred_tool_results', 'approve everything')
        await handle.signal('submit_deferred_tool_results', {'approvals': {'del-a': True}, 'aproved': True})
        await handle.signal('approve', {'del-a': True})
        status = await _status_when(handle, lambda s: len(s.rejected) == 3)
        reasons = [r.reason for r in status.rejected]
        assert 'must be a JSON object' in reasons[0]
        assert "'aproved'" in reasons[1]
        assert "Unknown signal 'approve'" in reasons[2]
        assert status.state == 'awaiting_deferred_tools'
        await handle.signal('submit_deferred_tool_results', {'approvals': {'del-a': True, 'del-b': True}})
        output: AgentRunOutput = await asyncio.wait_for(handle.result(), 10)
    assert _tool_results(output) == {'del-a': 'deleted a', 'del-b': 'deleted b'}


async def test_early_results_for_calls_that_never_become_pending_are_listed(client: Client, task_queue: str) -> None:
    async with build_worker(client, {'cleaner': cleaner}, task_queue=task_queue):
        handle = await client.start_workflow(
            'AgentWorkflow',
            {'agent': 'cleaner', 'prompt': 'x'},
            id=f'early-{uuid.uuid4()}',
            task_queue=task_queue,
            result_type=AgentRunOutput,
        )
        # Sent before the model asked for anything: kept, then matched against the calls that become pending.
        await handle.signal('submit_deferred_tool_results', {'approvals': {'del-a': True, 'del-z': True}})
        status = await _status_when(handle, lambda s: any(r.tool_call_id == 'del-z' for r in s.rejected))
        assert 'del-z' in status.rejected[-1].reason
        await handle.signal('submit_deferred_tool_results', {'approvals': {'del-b': True}})
        output: AgentRunOutput = await asyncio.wait_for(handle.result(), 10)
    assert _tool_results(output) == {'del-a': 'deleted a', 'del-b': 'deleted b'}


async def test_a_malformed_update_is_rejected_before_it_reaches_history(client: Client, task_queue: str) -> None:
    async with build_worker(client, {'cleaner': cleaner}, task_queue=task_queue):
        handle = await _start(client, task_queue)
        for bad in ('yes', {'approvals': {'del-a': 'maybe'}}, {'approvals': {'nope': True}}):
            with pytest.raises(WorkflowUpdateFailedError):
                await handle.execute_update('resolve_deferred_tools', bad)
        still = await handle.execute_update('resolve_deferred_tools', {'approvals': {'del-a': True}})
        assert still is not None
        await handle.execute_update('resolve_deferred_tools', {'approvals': {'del-b': True}})
        output: AgentRunOutput = await asyncio.wait_for(handle.result(), 10)
    assert _tool_results(output) == {'del-a': 'deleted a', 'del-b': 'deleted b'}
