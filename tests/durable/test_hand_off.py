"""Handing a durable conversation off to another served agent (`send_message(..., hand_off_to=...)`): the same
workflow, addressed by its first agent and its conversation id, on one message history, answered by the new agent
from that turn on, across continue-as-new, under the new agent's deferred tools and approval rules."""

from __future__ import annotations

import asyncio
import re
import uuid
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowFailureError, WorkflowUpdateFailedError, WorkflowUpdateStage
from temporalio.exceptions import ApplicationError

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows import AgentRunOutput, ApprovalRule, ConversationMessage, DurableAgent, conversation_workflow_id
from workflows.client import AgentClient, WaitingRun

from ._cli_helpers import command
from .test_agent_workflow import Account, wait_for_status
from .test_web_ui_details import current_details

pytestmark = pytest.mark.asyncio(loop_scope='session')


def prompts_of(messages: list[ModelMessage]) -> list[str]:
    requests = [m for m in messages if isinstance(m, ModelRequest)]
    return [str(p.content) for m in requests for p in m.parts if isinstance(p, UserPromptPart)]


def answers_as(name: str) -> FunctionModel:
    """Says which agent answers, and every user prompt of the history it was given."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(f'{name}: {" / ".join(prompts_of(messages))}')])

    return FunctionModel(respond)


def refunds_first(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Asks for a refund on the turn's prompt, then answers with what the tool returned."""
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    returned = [p for p in last.parts if p.part_kind == 'tool-return']
    if returned:
        return ModelResponse(parts=[TextPart(f'refunds: {returned[0].content}')])
    return ModelResponse(parts=[ToolCallPart('refund', {'amount': 30}, 'refund-1')])


triage = Agent(answers_as('triage'), name='triage')
billing = Agent(answers_as('billing'), name='billing')
refunds = Agent(FunctionModel(refunds_first), name='refunds')
accounts = Agent(answers_as('accounts'), deps_type=Account, name='accounts')


@refunds.tool_plain(requires_approval=True)
def refund(amount: int) -> str:
    """Refunds the customer (after a human approves)."""
    return f'refunded {amount}'


AGENTS: dict[str, Any] = {
    'triage': triage,
    'accounts': accounts,
    'billing': billing,
    'refunds': DurableAgent(refunds, approval_rules={'refund': ApprovalRule(approvers={'carol'})}),
}


async def test_a_conversation_handed_to_billing_is_answered_by_billing_on_one_history(
    client: Client, task_queue: str
) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    conversation = f'c-{uuid.uuid4()}'
    workflow_id = conversation_workflow_id('triage', conversation)
    handle = client.get_workflow_handle(workflow_id)
    async with build_worker(client, AGENTS, task_queue=task_queue):
        first = await agents.send_message('triage', conversation_id=conversation, prompt='charged twice')
        assert (await agents.status(workflow_id)).answering_agent is None
        second = await agents.send_message(
            'triage', conversation_id=conversation, prompt='please answer', hand_off_to='billing'
        )
        third = await agents.send_message('triage', conversation_id=conversation, prompt='thanks')
        status = await agents.status(workflow_id)
        details = await current_details(handle)
        page = await agents.messages(workflow_id)
        await agents.close_conversation('triage', conversation)
        final = await agents.result(workflow_id)
    assert [first.output, second.output, third.output] == [
        'triage: charged twice',
        'billing: charged twice / please answer',
        'billing: charged twice / please answer / thanks',
    ]
    assert status.answering_agent == 'billing'
    assert details.endswith('Answered by billing (the conversation was handed off to it)')
    # One conversation: one list of messages across both agents, which the workflow's result holds too.
    answers = [m.text for m in page.messages if isinstance(m, ModelResponse)]
    assert answers == [first.output, second.output, third.output]
    assert prompts_of(page.messages) == ['charged twice', 'please answer', 'thanks']
    assert [m.parts[0] for m in final.new_messages] == [m.parts[0] for m in page.messages]
    assert final.output == third.output


async def test_a_hand_off_outlives_continue_as_new(client: Client, task_queue: str) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    conversation = f'c-{uuid.uuid4()}'
    workflow_id = conversation_workflow_id('triage', conversation)
    handle = client.get_workflow_handle(workflow_id)
    async with build_worker(client, AGENTS, task_queue=task_queue):

        async def send(prompt: str, **fields: Any) -> Any:
            sent = await agents.send_message('triage', conversation_id=conversation, prompt=prompt, **fields)
            return sent.output

        # Two turns per workflow run: the hand-off happens in the first run, the third turn is the next run's.
        outputs = [await send('m1', max_turns_per_run=2), await send('m2', hand_off_to='billing')]
        first_run = (await handle.describe()).run_id
        outputs += [await send('m3'), await send('m4')]
        description = await handle.describe()
        status = await agents.status(workflow_id)
        address = client.service_client.config.target_host
        shown = await command('status', workflow_id, address=address, task_queue=task_queue)
        await agents.close_conversation('triage', conversation)
    assert '  answered by billing (the conversation was handed off to it)' in shown.out.splitlines(), shown
    assert outputs == ['triage: m1', 'billing: m1 / m2', 'billing: m1 / m2 / m3', 'billing: m1 / m2 / m3 / m4']
    assert description.run_id != first_run
    assert description.raw_description.workflow_execution_info.first_run_id != description.run_id
    assert status.answering_agent == 'billing'


async def test_a_hand_off_to_an_agent_the_worker_does_not_serve_is_refused_in_one_line(
    client: Client, task_queue: str
) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    conversation = f'c-{uuid.uuid4()}'
    workflow_id = conversation_workflow_id('triage', conversation)
    async with build_worker(client, AGENTS, task_queue=task_queue):
        await agents.send_message('triage', conversation_id=conversation, prompt='charged twice')
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await agents.send_message('triage', conversation_id=conversation, prompt='over to you', hand_off_to='legal')
        after = await agents.send_message('triage', conversation_id=conversation, prompt='still there?')
        status = await agents.status(workflow_id)
        await agents.close_conversation('triage', conversation)
        events = (await client.get_workflow_handle(workflow_id).fetch_history()).events
    cause = refused.value.cause
    assert isinstance(cause, ApplicationError)
    # One line naming what is served (agents registered for any queue, as a replayer in this process does, count).
    served = re.fullmatch(
        f"Cannot hand the conversation off to 'legal': the workers of task queue {task_queue!r} do not serve it "
        r"\(they serve ([\w, ]+)\)\. Hand it to one of those, or serve 'legal' there first\.",
        cause.message,
    )
    assert served is not None, cause.message
    assert {'accounts', 'billing', 'refunds', 'triage'} <= set(served.group(1).split(', '))
    # Refused before anything was recorded: the conversation goes on with triage, no workflow task failed.
    assert after.output == 'triage: charged twice / still there?'
    assert status.answering_agent is None
    assert [e for e in events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED] == []
    assert b'over to you' not in b''.join(e.SerializeToString() for e in events)


async def test_the_agent_handed_to_waits_for_approvals_under_its_own_rules(client: Client, task_queue: str) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    conversation = f'c-{uuid.uuid4()}'
    workflow_id = conversation_workflow_id('triage', conversation)
    handle = client.get_workflow_handle(workflow_id)
    async with build_worker(client, AGENTS, task_queue=task_queue):
        await agents.send_message('triage', conversation_id=conversation, prompt='charged twice')
        turn = await handle.start_update(
            'send_message',
            ConversationMessage('refund it', hand_off_to='refunds'),
            wait_for_stage=WorkflowUpdateStage.ACCEPTED,
            result_type=AgentRunOutput,
        )
        await wait_for_status(handle, 'awaiting_deferred_tools')
        pending = await agents.pending(workflow_id)

        async def listed(caller: str) -> list[WaitingRun]:
            return [run for run in await agents.inbox(caller=caller) if run.workflow_id == workflow_id]

        # Visibility lags a moment behind the run; the inbox asks every waiting run of the namespace (a run of
        # another test whose worker has stopped answers only at the query's timeout).
        async with asyncio.timeout(30):
            while not await listed('carol'):  # noqa: ASYNC110 (polling the server; nothing here to signal)
                await asyncio.sleep(0.1)
        (entry,) = await listed('carol')
        assert await listed('dave') == []  # refunds' rule, at the inbox too
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await agents.approve(workflow_id, approvals={'refund-1': True}, caller='dave')
        await agents.approve(workflow_id, approvals={'refund-1': True}, caller='carol')
        done = await turn.result()
        status = await agents.status(workflow_id)
        await agents.close_conversation('triage', conversation)
    assert pending is not None
    assert "'dave' may not approve calls of 'refund'" in str(refused.value.cause)  # the rule of refunds, not triage's
    assert [call.tool_name for call in pending.approvals] == ['refund']
    # The conversation's one inbox entry, under the agent it was started with.
    assert entry.agent == 'triage'
    assert entry.pending is not None
    assert [call.tool_name for call in entry.pending.approvals] == ['refund']
    assert done.output == 'refunds: refunded 30'
    assert [(d.tool_name, d.decision, d.by) for d in status.decisions] == [('refund', 'approve', ['carol'])]


async def test_a_hand_off_to_an_agent_whose_deps_the_conversation_lacks_is_refused(
    client: Client, task_queue: str
) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    conversation = f'c-{uuid.uuid4()}'
    async with build_worker(client, AGENTS, task_queue=task_queue):
        await agents.send_message('triage', conversation_id=conversation, prompt='charged twice')
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await agents.send_message('triage', conversation_id=conversation, prompt='whose?', hand_off_to='accounts')
        after = await agents.send_message('triage', conversation_id=conversation, prompt='still there?')
        await agents.close_conversation('triage', conversation)
    cause = refused.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.message.startswith("Cannot hand the conversation off to 'accounts': "), cause.message
    assert 'deps: required, but missing' in cause.message
    assert after.output == 'triage: charged twice / still there?'


async def test_a_run_that_is_not_a_conversation_cannot_name_an_answering_agent(client: Client, task_queue: str) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await agents.start('triage', 'charged twice', answering_agent='billing')
        with pytest.raises(WorkflowFailureError) as failed:
            await handle.result()
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == 'InvalidInput'
    assert cause.message.startswith(
        'The AgentWorkflow input is invalid: answering_agent is for conversations ("conversation": true)'
    )
