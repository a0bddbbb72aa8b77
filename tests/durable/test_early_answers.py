"""Answers sent by the `resolve_deferred_tools` update while the run is still working towards the calls they answer.

A reviewer can be faster than the run: the approval is sent while the tool call that comes before it still runs, or
while the run's last workflow task has not been applied on the worker that takes the update. The update is taken
and held until the run asks for the calls, then applied or refused with the reason; a second answer to a call
decided already is refused at the door.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError, WorkflowUpdateStage

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows import AgentRunOutput, AgentWorkflow, RunStatus
from workflows.client import AgentClient

from .waiting_agent import WAIT

pytestmark = pytest.mark.asyncio(loop_scope='session')


class Gates:
    """Events the test opens to let the run's slow parts (the lookup tool, the model's second answer) go on."""

    def __init__(self) -> None:
        self.lookup_started = asyncio.Event()
        self.lookup_may_end = asyncio.Event()
        self.answer_started = asyncio.Event()
        self.answer_may_end = asyncio.Event()


def cleaning_agent(name: str, gates: Gates, *, asks_to_delete: bool = True) -> Agent[None, str]:
    """Looks a file up (slowly), asks to delete it (an approval), then reports what its tools returned."""

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        returns = [p for p in last.parts if isinstance(p, ToolReturnPart)]
        if not returns:
            calls = [ToolCallPart('lookup', {'path': 'a.txt'}, 'look-1')]
            if asks_to_delete:
                calls.append(ToolCallPart('delete', {'path': 'a.txt'}, 'del-1'))
            return ModelResponse(parts=calls)
        gates.answer_started.set()
        await gates.answer_may_end.wait()
        return ModelResponse(parts=[TextPart(' | '.join(f'{p.tool_name}:{p.content}' for p in returns))])

    agent = Agent(FunctionModel(respond), name=name)

    @agent.tool_plain
    async def lookup(path: str) -> str:
        gates.lookup_started.set()
        await gates.lookup_may_end.wait()
        return f'found {path}'

    @agent.tool_plain(requires_approval=True)
    def delete(path: str) -> str:
        return f'deleted {path}'

    return agent


async def _status(handle: WorkflowHandle[Any, Any]) -> RunStatus:
    return await handle.query(AgentWorkflow.status)


async def _started_update(handle: WorkflowHandle[Any, Any], approvals: dict[str, Any]) -> Any:
    """The `resolve_deferred_tools` update, once the run has taken it (held or applied)."""
    return await handle.start_update(
        AgentWorkflow.resolve_deferred_tools, {'approvals': approvals}, wait_for_stage=WorkflowUpdateStage.ACCEPTED
    )


async def _run(
    client: Client, task_queue: str, agent: Agent[None, str]
) -> tuple[AgentClient, WorkflowHandle[Any, Any]]:
    agents = AgentClient(client, task_queue=task_queue)
    handle = await agents.start(agent.name or '', 'tidy up', workflow_id=f'early-{uuid.uuid4()}')
    return agents, handle


@asynccontextmanager
async def answered_while_working(
    client: Client, task_queue: str, name: str, approvals: dict[str, Any], *, asks_to_delete: bool = True
) -> AsyncIterator[tuple[AgentClient, WorkflowHandle[Any, Any], Any]]:
    """A run of a cleaning agent given `approvals` while its lookup still runs: the run, and the taken update.

    The lookup ends when the block starts; the worker stops when it ends.
    """
    gates = Gates()
    gates.answer_may_end.set()
    agent = cleaning_agent(name, gates, asks_to_delete=asks_to_delete)
    async with build_worker(client, {name: agent}, task_queue=task_queue):
        agents, handle = await _run(client, task_queue, agent)
        await asyncio.wait_for(gates.lookup_started.wait(), WAIT)
        update = await _started_update(handle, approvals)  # before the run has asked for the calls
        assert (await _status(handle)).state == 'running'
        gates.lookup_may_end.set()
        yield agents, handle, update


async def test_an_approval_sent_while_the_run_works_is_held_and_applied_when_asked(
    client: Client, task_queue: str
) -> None:
    async with answered_while_working(client, task_queue, 'early_cleaner', {'del-1': True}) as (_, handle, update):
        still_pending = await asyncio.wait_for(update.result(), WAIT)
        output: AgentRunOutput = await asyncio.wait_for(handle.result(), WAIT)
    assert still_pending is None
    assert output.output == 'lookup:found a.txt | delete:deleted a.txt'
    assert [(d.tool_call_id, d.decision) for d in output.decisions] == [('del-1', 'approve')]


async def test_a_held_answer_to_a_call_the_run_does_not_ask_for_fails_its_update_and_the_run_still_waits(
    client: Client, task_queue: str
) -> None:
    async with answered_while_working(client, task_queue, 'early_wrong_id', {'del-9': True}) as (
        agents,
        handle,
        update,
    ):
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await asyncio.wait_for(update.result(), WAIT)
        pending = await agents.pending(handle.id)
        await agents.approve(handle.id, approvals={'del-1': False})
        output: AgentRunOutput = await asyncio.wait_for(handle.result(), WAIT)
    assert str(refused.value.cause) == (
        "Result for tool call 'del-9', which was not among the calls that became pending (['del-1'])."
    )
    assert pending is not None
    assert [call.tool_call_id for call in pending.approvals] == ['del-1']
    assert output.output == 'lookup:found a.txt | delete:The tool call was denied.'


async def test_a_second_answer_to_a_decided_call_is_refused_at_the_door_while_the_run_goes_on(
    client: Client, task_queue: str
) -> None:
    gates = Gates()
    gates.lookup_may_end.set()
    agent = cleaning_agent('early_twice', gates)
    async with build_worker(client, {'early_twice': agent}, task_queue=task_queue):
        agents, handle = await _run(client, task_queue, agent)
        async with asyncio.timeout(WAIT):
            while (await agents.pending(handle.id)) is None:  # noqa: ASYNC110 (polling the run)
                await asyncio.sleep(0.05)
        await agents.approve(handle.id, approvals={'del-1': True})
        await asyncio.wait_for(gates.answer_started.wait(), WAIT)  # the run works on its next model request
        with pytest.raises(WorkflowUpdateFailedError) as twice:
            await agents.approve(handle.id, approvals={'del-1': True})
        gates.answer_may_end.set()
        output: AgentRunOutput = await asyncio.wait_for(handle.result(), WAIT)
        history = await handle.fetch_history()
    assert str(twice.value.cause) == "ValueError: Tool call 'del-1' was already resolved."
    accepted = [e for e in history.events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED]
    assert len(accepted) == 1  # the refused one never reached history
    assert output.output == 'lookup:found a.txt | delete:deleted a.txt'


async def test_a_held_answer_fails_its_update_when_the_run_ends_without_asking(client: Client, task_queue: str) -> None:
    async with answered_while_working(client, task_queue, 'early_unasked', {'del-1': True}, asks_to_delete=False) as (
        _,
        handle,
        update,
    ):
        with pytest.raises(WorkflowUpdateFailedError) as unasked:
            await asyncio.wait_for(update.result(), WAIT)
        output: AgentRunOutput = await asyncio.wait_for(handle.result(), WAIT)
    assert str(unasked.value.cause) == (
        "The run stopped working (completed) without asking for tool calls ['del-1']: nothing was applied."
    )
    assert output.output == 'lookup:found a.txt'
