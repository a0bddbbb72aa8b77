"""Agent delegation (a tool runs another agent with `usage=ctx.usage`) written once and run both ways: in process,
and durably, where the other agent's run is a child workflow of the parent's."""

from __future__ import annotations

import asyncio
import signal
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowUpdateFailedError
from temporalio.testing import WorkflowEnvironment

from agent import Agent, RunContext
from agent.messages import ModelMessage, ModelMessagesTypeAdapter, ModelResponse, TextPart, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow, ConversationMessage
from workflows import _eviction as eviction
from workflows._types import CancelTurnResult
from workflows.client import AgentClient

from .delegation_agents import (
    Slow,
    agents_of,
    approving_researcher,
    failing_researcher,
    researcher,
    router,
    sync_router,
    tool_log,
    tools_then_text,
)
from .test_crash_resume import start_worker, wait_for_line
from .test_eviction import _cached as cached

pytestmark = pytest.mark.asyncio(loop_scope='session')

ANSWER = 'tides follow the moon + twice a day'


async def run_both_ways(
    client: Client, task_queue: str, child: Agent[None, str], parent: Agent[None, str] | None = None
) -> tuple[Any, AgentRunOutput, str]:
    """`parent`'s run (the router of `child` by default) in process, then durably (on a worker serving both agents):
    both results, and the durable run's workflow id."""
    served = {'router': parent, 'researcher': child} if parent is not None else agents_of(child)
    in_process = await served['router'].run('Why are there tides?')
    async with build_worker(client, served, task_queue=task_queue):
        agents = AgentClient(client, task_queue=task_queue)
        handle = await agents.start('router', 'Why are there tides?', workflow_id=f'router-{uuid.uuid4()}')
        durable = await agents.result(handle.id)
    return in_process, durable, handle.id


async def test_a_delegating_tool_runs_the_other_agent_as_a_child_run_with_the_same_result_and_usage(
    client: Client, task_queue: str
) -> None:
    tool_log.clear()
    in_process, durable, workflow_id = await run_both_ways(client, task_queue, researcher())

    assert in_process.output == durable.output == ANSWER
    # The parent's usage takes in the child's exactly once, as in process.
    assert durable.usage == in_process.usage()
    assert durable.usage.requests == 4  # two of the router's, two of the researcher's
    # Each of the child's tools ran once per run (once in process, once durably; the two of a run at once).
    assert sorted(tool_log) == ['lookup tides', 'lookup tides', 'measure', 'measure']

    parent = client.get_workflow_handle(workflow_id)
    events = (await parent.fetch_history()).events
    started = [e for e in events if e.event_type == EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED]
    (child_start,) = started
    child_id = child_start.start_child_workflow_execution_initiated_event_attributes.workflow_id
    assert child_id.startswith(f'{workflow_id}.')
    assert 'p-1' in child_id
    child = client.get_workflow_handle(child_id, result_type=AgentRunOutput)
    description = await child.describe()
    assert description.parent_id == workflow_id
    assert await description.static_summary() == 'researcher, for ask_researcher [p-1]'
    child_result = await child.result()
    assert child_result.output == ANSWER
    # The child's model requests and tools are its own steps: activities of the child, none of them the parent's.
    child_events = (await child.fetch_history()).events
    scheduled = [e for e in child_events if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED]
    names = [e.activity_task_scheduled_event_attributes.activity_type.name for e in scheduled]
    assert names == [
        'agent.researcher.model_request',
        'agent.researcher.call_tool',
        'agent.researcher.call_tool',
        'agent.researcher.model_request',
    ]


async def test_a_failing_child_gives_the_delegating_tool_its_error_as_in_process(
    client: Client, task_queue: str
) -> None:
    in_process, durable, _ = await run_both_ways(client, task_queue, failing_researcher())
    assert durable.output == in_process.output
    assert durable.output.startswith('The researcher failed: ')
    assert 'no_such_tool' in durable.output or 'retries' in durable.output


async def test_a_childs_approval_is_listed_and_answered_at_the_parent(client: Client, task_queue: str) -> None:
    tool_log.clear()
    async with build_worker(client, agents_of(approving_researcher()), task_queue=task_queue):
        agents = AgentClient(client, task_queue=task_queue, identity='alice')
        handle = await agents.start('router', 'Why are there tides?', workflow_id=f'router-{uuid.uuid4()}')
        pending = await until(lambda: agents.pending(handle.id))
        assert [(c.tool_call_id, c.tool_name) for c in pending.approvals] == [('p-1/r-2', 'publish')]
        status = await agents.status(handle.id)
        assert status.state == 'awaiting_deferred_tools'
        # The inbox lists the parent (where the approval is answered), not the child.
        listed = await until(lambda: _listed(agents, handle.id))
        assert [run.workflow_id for run in listed] == [handle.id]
        with pytest.raises(WorkflowUpdateFailedError) as unknown:
            await agents.approve(handle.id, approvals={'p-1/r-9': True})
        assert "is not waiting for approvals of 'r-9'" in str(unknown.value.cause)
        assert tool_log == ['lookup tides']
        await agents.approve(handle.id, approvals={'p-1/r-2': True})
        result = await agents.result(handle.id)
        (child_id,) = await _children(client, handle.id)
        child = await agents.status(child_id)  # the child's own status names who approved
        parent = await agents.status(handle.id)
    assert result.output == 'tides follow the moon + published'
    assert tool_log == ['lookup tides', 'publish']
    assert [(r.tool_call_id, r.decision, r.by) for r in child.decisions] == [('r-2', 'approve', ['alice'])]
    # The parent's result and status name the decision too, under the path.
    assert [(r.tool_call_id, r.decision, r.by) for r in result.decisions] == [('p-1/r-2', 'approve', ['alice'])]
    assert [(r.tool_call_id, r.decision) for r in parent.decisions] == [('p-1/r-2', 'approve')]


async def until(probe: Any) -> Any:
    """What `probe()` answers once it answers something (bounded)."""
    async with asyncio.timeout(30):
        while not (answer := await probe()):  # noqa: ASYNC110 (asks the server; nothing to wait on here)
            await asyncio.sleep(0.05)
        return answer


async def _listed(agents: AgentClient, workflow_id: str) -> list[Any]:
    runs = await agents.inbox()
    mine = [run for run in runs if run.workflow_id.startswith(workflow_id)]
    return mine if any(run.workflow_id == workflow_id for run in mine) else []


async def _children(client: Client, workflow_id: str) -> list[str]:
    events = (await client.get_workflow_handle(workflow_id).fetch_history()).events
    return [
        e.start_child_workflow_execution_initiated_event_attributes.workflow_id
        for e in events
        if e.event_type == EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED
    ]


async def test_cancelling_the_parents_turn_cancels_the_child_run(client: Client, task_queue: str) -> None:
    slow = Slow()
    async with build_worker(client, agents_of(slow.agent()), task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='router', conversation=True),
            id=f'router-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        turn = asyncio.create_task(
            handle.execute_update('send_message', ConversationMessage('dig'), result_type=AgentRunOutput)
        )
        await asyncio.wait_for(slow.started.wait(), 30)
        (child_id,) = await _children(client, handle.id)
        cancelled = await handle.execute_update('cancel_turn', result_type=CancelTurnResult)
        with pytest.raises(WorkflowUpdateFailedError):
            await asyncio.wait_for(turn, 30)
        await asyncio.wait_for(slow.cancelled.wait(), 30)  # the child's tool heard of it
        child = await client.get_workflow_handle(child_id).describe()
        await handle.signal(AgentWorkflow.close_conversation)
    assert cancelled.cancelled
    assert child.status == WorkflowExecutionStatus.CANCELED


async def test_a_worker_killed_during_the_childs_tool_reruns_only_that_tool(
    temporal_env: WorkflowEnvironment, client: Client, task_queue: str, tmp_path: Path
) -> None:
    log = tmp_path / 'tools.log'
    agents = ['tests.durable.crash_delegation_agents:router', 'tests.durable.crash_delegation_agents:researcher']
    async with start_worker(temporal_env, task_queue, log, agents=agents) as first:
        handle = await AgentClient(client, task_queue=task_queue).start('router', 'go')
        await wait_for_line(log, 'dig r-2')
        # The child's other tool ran at the same time: its completion must be on the server before the kill, or
        # Temporal rightly runs it again (a completion the dead worker never reported).
        (child_id,) = await until(lambda: _children(client, handle.id))
        await until(lambda: _completed(client, child_id, 'tool.r-1'))
        first.send_signal(signal.SIGKILL)
        await first.wait()
    async with start_worker(temporal_env, task_queue, log, agents=agents):
        result = await asyncio.wait_for(AgentClient(client, task_queue=task_queue).result(handle.id), 60)
    assert result.output == 'prepared + looked up + dug'
    # Completed steps never ran again: the parent's first tool, the child's first tool. The interrupted tool ran
    # again; the delegating tool ran once to start the child and once to take its result. (Each run's two tools run
    # at once, so only the counts are certain, not the order.)
    assert Counter(log.read_text().splitlines()) == {
        'prepare p-1': 1,
        'ask_researcher p-2': 2,
        'lookup r-1': 1,
        'dig r-2': 2,
    }


async def test_a_parent_whose_child_waits_for_a_person_leaves_the_workers_cache_too(
    client: Client, task_queue: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(eviction, 'QUERIED_STAY', 0.5)  # asked what they wait for, the runs stay cached a while
    worker = build_worker(client, agents_of(approving_researcher()), task_queue=task_queue)
    async with worker:
        agents = AgentClient(client, task_queue=task_queue)
        handle = await agents.start('router', 'Why are there tides?', workflow_id=f'router-{uuid.uuid4()}')
        await until(lambda: agents.pending(handle.id))
        (child_id,) = await _children(client, handle.id)
        child_run = (await client.get_workflow_handle(child_id).describe()).run_id
        parent_run = (await client.get_workflow_handle(handle.id).describe()).run_id
        # Both wait for a person: neither holds memory on the worker meanwhile.
        await until_true(lambda: not cached(worker, child_run) and not cached(worker, parent_run))
        await agents.approve(handle.id, approvals={'p-1/r-2': True})
        result = await agents.result(handle.id)
    assert result.output == 'tides follow the moon + published'


async def until_true(condition: Any) -> None:
    async with asyncio.timeout(30):
        while not condition():  # noqa: ASYNC110 (the worker's cache has no event to wait on)
            await asyncio.sleep(0.02)


async def _completed(client: Client, workflow_id: str, activity_id_part: str) -> bool:
    """Whether an activity of `workflow_id` whose id contains `activity_id_part` has completed, per its history."""
    events = (await client.get_workflow_handle(workflow_id).fetch_history()).events
    scheduled = {
        e.event_id
        for e in events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and activity_id_part in e.activity_task_scheduled_event_attributes.activity_id
    }
    return any(
        e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED
        and e.activity_task_completed_event_attributes.scheduled_event_id in scheduled
        for e in events
    )


async def test_run_sync_in_a_sync_tool_delegates_too(client: Client, task_queue: str) -> None:
    child = researcher()
    in_process, durable, workflow_id = await run_both_ways(client, task_queue, child, sync_router(child))
    assert durable.output == in_process.output == ANSWER
    assert len(await _children(client, workflow_id)) == 1


async def test_a_grandchilds_approval_is_answered_at_the_top_run(client: Client, task_queue: str) -> None:
    # router -> editor (a middle agent that delegates too) -> researcher, whose `publish` waits for a person.
    tool_log.clear()
    researcher_agent = approving_researcher()
    editor = Agent(tools_then_text(ToolCallPart('ask_researcher', {'question': 'tides?'}, 'e-1')), name='editor')

    @editor.tool
    async def ask_researcher(ctx: RunContext[None], question: str) -> str:
        return (await researcher_agent.run(question, usage=ctx.usage)).output

    agents_served = {'router': router(editor), 'editor': editor, 'researcher': researcher_agent}
    async with build_worker(client, agents_served, task_queue=task_queue):
        agents = AgentClient(client, task_queue=task_queue, identity='alice')
        handle = await agents.start('router', 'Why are there tides?')
        pending = await until(lambda: agents.pending(handle.id))
        assert [(c.tool_call_id, c.tool_name) for c in pending.approvals] == [('p-1/e-1/r-2', 'publish')]
        await agents.approve(handle.id, approvals={'p-1/e-1/r-2': True})
        result = await agents.result(handle.id)
    assert result.output == 'tides follow the moon + published'
    assert tool_log == ['lookup tides', 'publish']
    assert [(r.tool_call_id, r.by) for r in result.decisions] == [('p-1/e-1/r-2', ['alice'])]


async def test_a_childs_messages_stay_out_of_the_parents_history_until_the_tool_reads_them(
    client: Client, task_queue: str
) -> None:
    # The child's one tool returns 20 kB; its answer is short. The parent's tool reads the child's output and,
    # through `new_messages()`, its messages, which the activity reads from the child run without recording them.
    big = Agent(_call_then_answer('fetch', 'short answer'), name='researcher')

    @big.tool_plain
    def fetch() -> str:
        return 'x' * 20_000

    parent = Agent(tools_then_text(ToolCallPart('ask_researcher', {}, 'p-1')), name='router')

    @parent.tool
    async def ask_researcher(ctx: RunContext[None]) -> str:
        result = await big.run('go', usage=ctx.usage)
        sizes = [len(ModelMessagesTypeAdapter.dump_json([message])) > 20_000 for message in result.new_messages()]
        return f'{result.output}; large messages: {sizes}'

    in_process = await parent.run('go')
    async with build_worker(client, {'router': parent, 'researcher': big}, task_queue=task_queue):
        agents = AgentClient(client, task_queue=task_queue)
        handle = await agents.start('router', 'go', workflow_id=f'router-{uuid.uuid4()}')
        durable = await agents.result(handle.id)
        (child_id,) = await _children(client, handle.id)
        child = await agents.result(child_id)  # the client pages in the messages the child's result left out
        parent_bytes = sum(event.ByteSize() for event in (await handle.fetch_history()).events)
    assert durable.output == in_process.output == 'short answer; large messages: [False, False, True, False]'
    assert durable.usage == in_process.usage()
    assert len(ModelMessagesTypeAdapter.dump_json(child.new_messages)) > 20_000
    # The 20 kB are in the child's history only: not in its result, nor in the parent's history.
    assert parent_bytes < 20_000


def _call_then_answer(tool_name: str, answer: str) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart(tool_name, {}, 'r-1')])
        return ModelResponse(parts=[TextPart(answer)])

    return FunctionModel(respond)
