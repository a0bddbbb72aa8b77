"""`RequestInput` in a durable run: the workflow records the wait, `ask` runs once, the token is resolved by the
workflow's `resolve_external_event` update or `submit_external_event` signal (the other doors are in
`test_external_event_doors.py`, a crashed worker in `test_request_input_crash.py`)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from agent import Agent, DeferredToolRequests, RunContext
from agent.exceptions import UserError
from agent.external_events import wait_for_external_event
from agent.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel
from tests._docs import blocks
from worker import AgentWorker, build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow, RunStatus
from workflows._resume_tokens import decode_token, encode_token
from workflows._types import ExternalEventResolution

from .waiting_agent import WAIT, Inbox, Recorded, charge_agent, file_agent

pytestmark = pytest.mark.asyncio(loop_scope='session')

APPROVE = {'approvals': {'del-1': True}}
DELETED = "delete_file:success:File 'a.txt' deleted"


@asynccontextmanager
async def waiting(
    client: Client, task_queue: str, agent: Agent[Any, Any], **inp: Any
) -> AsyncIterator[tuple[AgentWorker, WorkflowHandle[Any, AgentRunOutput]]]:
    """A worker serving `agent` as `waiter`, and a run of it that asks for approval."""
    worker = build_worker(client, {'waiter': agent}, task_queue=task_queue)
    async with worker:
        handle: WorkflowHandle[Any, AgentRunOutput] = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='waiter', prompt='Delete a.txt', **inp),
            id=f'waiter-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        yield worker, handle


async def resolve(handle: WorkflowHandle[Any, Any], token: str, **fields: Any) -> None:
    await handle.execute_update('resolve_external_event', ExternalEventResolution(token, **fields))


async def status_when(handle: WorkflowHandle[Any, Any], check: Any) -> RunStatus:
    """The run's status once `check(status)` holds (bounded)."""
    async with asyncio.timeout(WAIT):
        while True:
            status = await handle.query(AgentWorkflow.status)
            if check(status):
                return status
            await asyncio.sleep(0.05)


async def accepted_updates(handle: WorkflowHandle[Any, Any]) -> int:
    history = await handle.fetch_history()
    return sum(e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED for e in history.events)


async def test_the_docs_request_input_example_runs_durably_as_written(client: Client, task_queue: str) -> None:
    # The agent, its `ask` and its tool exactly as docs/approvals.md writes them for an in-process run.
    (example, *_) = blocks('docs/approvals.md', 'python', section='Waiting for an answer from anywhere (RequestInput)')
    namespace: dict[str, Any] = {'__name__': 'docs_example'}
    exec(compile(example.source.replace('asyncio.run(main())', ''), 'approvals.md', 'exec'), namespace)
    inbox: asyncio.Queue[tuple[DeferredToolRequests, str]] = namespace['inbox']

    async with waiting(client, task_queue, namespace['agent']) as (_, handle):
        requests, token = await asyncio.wait_for(inbox.get(), WAIT)
        call = requests.approvals[0]
        assert decode_token(token).workflow_id == handle.id
        await resolve(handle, token, payload={'approvals': {call.tool_call_id: True}}, caller='alice')
        result = await asyncio.wait_for(handle.result(), WAIT)

    assert 'deleted' in str(result.output)
    assert inbox.empty()  # asked once


async def test_a_waiting_run_lists_its_wait_in_its_status_and_leaves_the_workers_cache(
    client: Client, task_queue: str
) -> None:
    inbox = Inbox()
    agent = file_agent('waiter', inbox, timeout=timedelta(hours=1))
    async with waiting(client, task_queue, agent) as (worker, handle):
        token = await inbox.token()
        status = await status_when(handle, lambda s: s.external_events)
        (event,) = status.external_events
        assert (event.name, event.token) == ('deferred_tool_calls', token)
        assert event.expires is not None
        assert event.expires - event.since == timedelta(hours=1)
        await status_when(handle, lambda s: worker.waiting_runs_evicted > 0)  # waiting for a person: left the cache

        await resolve(handle, token, payload=APPROVE, caller='alice')
        result = await asyncio.wait_for(handle.result(), WAIT)
        assert (await handle.query(AgentWorkflow.status)).external_events == []

    assert result.output == DELETED
    assert [t for _, t in inbox.posted] == [token]  # asked once, though the run replayed after its eviction
    assert Recorded.results[(result.run_id, 'del-1')].answered_by == {'del-1': 'alice'}


async def test_the_signal_resolves_a_wait_too(client: Client, task_queue: str) -> None:
    inbox = Inbox()
    async with waiting(client, task_queue, file_agent('waiter', inbox)) as (_, handle):
        token = await inbox.token()
        answer = {**APPROVE, 'answered_by': {'del-1': 'bot'}}
        await handle.signal('submit_external_event', ExternalEventResolution(token, answer, caller='alice'))
        result = await asyncio.wait_for(handle.result(), WAIT)

    assert result.output == DELETED
    assert Recorded.results[(result.run_id, 'del-1')].answered_by == {'del-1': 'bot'}  # the payload's own wins


async def test_an_ask_that_answers_at_once_needs_no_resolution(client: Client, task_queue: str) -> None:
    asked: list[str] = []

    async def ask(ctx: RunContext[None], requests: DeferredToolRequests, token: str) -> dict[str, Any]:
        asked.append(token)
        return {'approvals': {'del-1': False}}

    async with waiting(client, task_queue, file_agent('waiter', ask)) as (_, handle):
        result = await asyncio.wait_for(handle.result(), WAIT)

    assert result.output == 'delete_file:denied:The tool call was denied.'
    assert len(asked) == 1


async def test_a_wait_that_times_out_denies_the_call_and_tells_the_model(client: Client, task_queue: str) -> None:
    inbox = Inbox()
    async with waiting(client, task_queue, file_agent('waiter', inbox, timeout=timedelta(seconds=1))) as (_, handle):
        result = await asyncio.wait_for(handle.result(), WAIT)

    assert result.output == (
        'delete_file:denied:No decision on this tool call arrived: No resolution arrived within 0:00:01.'
    )


async def test_a_failed_token_fails_an_external_call_with_the_reason(client: Client, task_queue: str) -> None:
    inbox = Inbox()
    async with waiting(client, task_queue, charge_agent('waiter', inbox)) as (_, handle):
        await resolve(handle, await inbox.token(), failure='The card was declined.')
        result = await asyncio.wait_for(handle.result(), WAIT)

    assert result.output == 'charge:failed:No decision on this tool call arrived: The card was declined.'


async def test_an_ask_that_raises_user_error_fails_the_run_with_its_message(client: Client, task_queue: str) -> None:
    calls: list[str] = []

    def misconfigured(ctx: RunContext[None], requests: DeferredToolRequests, token: str) -> None:
        calls.append(token)
        raise UserError('No reviewers are configured for this agent.')

    async with waiting(client, task_queue, file_agent('waiter', misconfigured)) as (_, handle):
        with pytest.raises(WorkflowFailureError) as failure:
            await asyncio.wait_for(handle.result(), WAIT)

    assert 'No reviewers are configured for this agent.' in str(failure.value.cause)
    assert len(calls) == 1  # not retried


async def test_a_failing_ask_is_retried_until_it_hands_the_token_on(client: Client, task_queue: str) -> None:
    tokens: list[str] = []

    def ask(ctx: RunContext[None], requests: DeferredToolRequests, token: str) -> None:
        tokens.append(token)
        if len(tokens) == 1:
            raise ConnectionError('the chat service is down')

    async with waiting(client, task_queue, file_agent('waiter', ask)) as (_, handle):
        await status_when(handle, lambda s: len(tokens) == 2)
        await resolve(handle, tokens[-1], payload=APPROVE)
        assert (await asyncio.wait_for(handle.result(), WAIT)).output == DELETED

    assert tokens[0] == tokens[1]  # the same wait, asked again with its token


async def test_the_update_refuses_what_the_run_cannot_take_and_records_nothing(client: Client, task_queue: str) -> None:
    inbox = Inbox()
    async with waiting(client, task_queue, file_agent('waiter', inbox)) as (_, handle):
        token = await inbox.token()
        address = decode_token(token)
        other_key = encode_token(address.workflow_id, address.run_id, 'deferred_tool_calls.7')
        other_run = encode_token(address.workflow_id, 'another-run', address.key)
        other_workflow = encode_token('another-workflow', address.run_id, address.key)
        refusals = {
            'ev1.bm90IGpzb24': 'is damaged',
            other_workflow: "The token is for workflow 'another-workflow', not this one",
            other_run: "The token is for run 'another-run' of this workflow",
            other_key: "This run has no wait 'deferred_tool_calls.7'",
        }
        for sent, reason in refusals.items():
            with pytest.raises(WorkflowUpdateFailedError) as refused:
                await resolve(handle, sent, payload=APPROVE)
            assert reason in str(refused.value.cause), sent
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await resolve(handle, token, payload={'approvals': {'del-9': True}})
        assert "The payload does not fit the wait 'deferred_tool_calls.1'" in str(refused.value.cause)
        assert "'del-9'" in str(refused.value.cause)
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await resolve(handle, token, payload=APPROVE, failure='no')
        assert 'not both' in str(refused.value.cause)
        assert await accepted_updates(handle) == 0

        await resolve(handle, token, payload=APPROVE)  # the wait was waiting all along
        assert (await asyncio.wait_for(handle.result(), WAIT)).output == DELETED


async def test_a_late_token_is_refused_by_the_run_and_so_is_one_of_a_wait_not_reached(
    client: Client, task_queue: str
) -> None:
    inbox = Inbox()
    agent = file_agent('waiter', inbox, timeout=timedelta(seconds=1))
    async with waiting(client, task_queue, agent, conversation=True) as (_, handle):
        token = await inbox.token()
        address = decode_token(token)
        # The conversation stays open once the turn has ended: a late token is refused by the run itself.
        await status_when(handle, lambda s: s.state == 'awaiting_message')
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await resolve(handle, token, payload=APPROVE)
        assert "The wait 'deferred_tool_calls.1' of this run has already ended: it timed out." in str(
            refused.value.cause
        )
        # A token of the next wait, which the run has not reached: sent again later, it may be taken.
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await resolve(handle, encode_token(address.workflow_id, address.run_id, 'deferred_tool_calls.2'))
        assert isinstance(refused.value.cause, ApplicationError)
        assert refused.value.cause.type == 'WaitNotReached'
        assert "This run has not reached the wait 'deferred_tool_calls.2' yet" in refused.value.cause.message
        assert await accepted_updates(handle) == 0
        await handle.signal(AgentWorkflow.close_conversation)
        result = await asyncio.wait_for(handle.result(), WAIT)

    assert 'No resolution arrived within 0:00:01' in str(result.output)


async def test_a_token_resolved_twice_is_refused_the_second_time(client: Client, task_queue: str) -> None:
    inbox = Inbox()
    async with waiting(client, task_queue, file_agent('waiter', inbox), conversation=True) as (_, handle):
        token = await inbox.token()
        await resolve(handle, token, payload=APPROVE, caller='alice')
        await status_when(handle, lambda s: s.state == 'awaiting_message')

        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await resolve(handle, token, payload={'approvals': {'del-1': False}})
        assert "has already ended: it was resolved by 'alice'." in str(refused.value.cause)
        assert await accepted_updates(handle) == 1
        await handle.signal(AgentWorkflow.close_conversation)
        assert (await asyncio.wait_for(handle.result(), WAIT)).output == DELETED


async def test_the_signal_records_what_it_cannot_take_and_changes_nothing_else(client: Client, task_queue: str) -> None:
    inbox = Inbox()
    async with waiting(client, task_queue, file_agent('waiter', inbox)) as (_, handle):
        token = await inbox.token()
        await handle.signal('submit_external_event', ExternalEventResolution(token, {'approvals': {'del-9': True}}))
        await handle.signal('submit_external_event', {'token': 'nonsense'})
        status = await status_when(handle, lambda s: len(s.rejected) == 2)
        assert [r.handler for r in status.rejected] == ['submit_external_event'] * 2
        assert "The payload does not fit the wait 'deferred_tool_calls.1'" in status.rejected[0].reason
        assert "does not start with 'ev1.'" in status.rejected[1].reason
        assert [e.token for e in status.external_events] == [token]  # still waiting

        await resolve(handle, token, payload=APPROVE)
        assert (await asyncio.wait_for(handle.result(), WAIT)).output == DELETED


def waits_in_a_tool(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart('ask_a_person', {}, 'ask-1')])
    return ModelResponse(parts=[TextPart('done')])


async def test_a_tool_that_waits_in_its_activity_is_told_to_use_request_input(client: Client, task_queue: str) -> None:
    agent = Agent(FunctionModel(waits_in_a_tool))

    @agent.tool_plain
    async def ask_a_person() -> Any:
        return await wait_for_external_event('question', ask=lambda token: None)

    async with waiting(client, task_queue, agent) as (_, handle):
        with pytest.raises(WorkflowFailureError) as failure:
            await asyncio.wait_for(handle.result(), WAIT)

    assert 'called inside a durable unit' in str(failure.value.cause)
    assert 'RequestInput' in str(failure.value.cause)


async def test_a_request_input_answer_can_be_given_to_a_run_with_a_named_wait(client: Client, task_queue: str) -> None:
    inbox = Inbox()
    agent = file_agent('waiter', inbox, name='approve_delete')
    async with waiting(client, task_queue, agent) as (_, handle):
        token = await inbox.token()
        assert decode_token(token).key == 'approve_delete.1'
        await resolve(handle, token, payload=APPROVE)
        assert (await asyncio.wait_for(handle.result(), WAIT)).output == DELETED
