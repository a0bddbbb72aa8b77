"""Approval rules and decision records against the dev server: who may approve, M-of-N, expiry, the inbox by
identity, and records that a replay writes the same."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.testing import WorkflowEnvironment

from agent import Agent, ToolApproved, ToolDenied
from agent.messages import ToolCallPart
from worker import build_worker
from workflows import (
    AgentRunInput,
    AgentRunOutput,
    AgentWorkflow,
    ApprovalPolicy,
    ApprovalRule,
    DurableAgent,
    RunStatus,
)
from workflows._decisions import args_digest
from workflows.client import AgentClient, TokenRefused

from .test_agent_workflow import scripted
from .waiting_agent import Inbox, file_agent

pytestmark = pytest.mark.asyncio(loop_scope='session')

WAIT = 30.0
TRANSFER = ToolCallPart('transfer', {'amount': 900}, 't-1')
ARCHIVE = ToolCallPart('archive', {'path': 'a.txt'}, 'a-1')

ran: list[tuple[str, Any]] = []


def payments_agent(*calls: ToolCallPart) -> Agent[None, str]:
    agent = Agent(scripted(*(calls or (TRANSFER,))), name='payments')

    @agent.tool_plain(requires_approval=True)
    def transfer(amount: int) -> str:
        ran.append(('transfer', amount))
        return f'sent {amount}'

    @agent.tool_plain(requires_approval=True)
    def archive(path: str) -> str:
        ran.append(('archive', path))
        return f'archived {path}'

    return agent


TWO_OF_THREE = ApprovalRule(approvers={'alice', 'bob', 'carol'}, required_approvals=2)


@asynccontextmanager
async def waiting_run(
    client: Client,
    task_queue: str,
    rules: dict[str, ApprovalRule],
    *calls: ToolCallPart,
    policy: ApprovalPolicy | None = None,
    roles: dict[str, Any] | None = None,
    durable: DurableAgent | None = None,
) -> AsyncIterator[tuple[AgentClient, WorkflowHandle[Any, AgentRunOutput]]]:
    """A worker serving the payments agent under `rules` (or `durable`), and a run of it waiting for approvals."""
    durable = durable or DurableAgent(
        payments_agent(*calls), approval_rules=rules, roles=roles or {}, approval_policy=policy
    )
    async with build_worker(client, {'payments': durable}, task_queue=task_queue):
        handle: WorkflowHandle[Any, AgentRunOutput] = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='payments', prompt='pay the invoice'),
            id=f'payments-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        agents = AgentClient(client, task_queue=task_queue, identity='ops-console')
        await status_when(handle, lambda status: status.state == 'awaiting_deferred_tools')
        yield agents, handle


async def status_when(handle: WorkflowHandle[Any, Any], check: Callable[[RunStatus], bool]) -> RunStatus:
    async with asyncio.timeout(WAIT):
        while True:
            status = await handle.query(AgentWorkflow.status)
            if check(status):
                return status
            await asyncio.sleep(0.05)


async def accepted_updates(handle: WorkflowHandle[Any, Any]) -> int:
    history = await handle.fetch_history()
    return sum(e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED for e in history.events)


async def test_a_caller_the_rule_does_not_allow_is_refused_and_nothing_is_recorded(
    client: Client, task_queue: str
) -> None:
    async with waiting_run(client, task_queue, {'transfer': TWO_OF_THREE}) as (agents, handle):
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await agents.approve(handle.id, approvals={'t-1': True}, caller='mallory')
        assert "'mallory' may not approve calls of 'transfer'" in str(refused.value.cause)
        # The signal cannot be refused: the run lists it and counts nothing.
        await agents.submit(handle.id, approvals={'t-1': True}, caller='mallory')
        status = await status_when(handle, lambda status: bool(status.rejected))
        assert [(r.handler, r.tool_call_id) for r in status.rejected] == [('submit_deferred_tool_results', 't-1')]
        assert "'mallory' may not approve" in status.rejected[0].reason
        # Nor can an answer that names no one count where the rule names approvers (a raw Temporal client's).
        await handle.signal('submit_deferred_tool_results', {'approvals': {'t-1': True}})
        status = await status_when(handle, lambda status: len(status.rejected) == 2)
        assert 'must name who gives them' in status.rejected[1].reason
        blank_caller = [{'approvals': {'t-1': True}}, {'identity': ' '}]  # a raw client's caller naming no one
        with pytest.raises(WorkflowUpdateFailedError) as blank:
            await handle.execute_update('resolve_deferred_tools', args=blank_caller)
        assert 'must name someone as its identity' in str(blank.value.cause)
        assert [(a.tool_call_id, a.approved_by, a.required) for a in status.open_approvals] == [('t-1', [], 2)]
        assert status.decisions == []
        assert await accepted_updates(handle) == 0
        await handle.terminate('done')


async def test_two_of_three_runs_the_tool_only_after_the_second_distinct_approver(
    client: Client, task_queue: str
) -> None:
    ran.clear()
    async with waiting_run(client, task_queue, {'transfer': TWO_OF_THREE}, TRANSFER, ARCHIVE) as (agents, handle):
        # The call without a rule takes any one approval, and waits with the rest.
        assert await agents.approve(handle.id, approvals={'a-1': True}) is not None
        still = await agents.approve(handle.id, approvals={'t-1': True}, caller='alice')
        assert still is not None
        assert [c.tool_call_id for c in still.approvals] == ['t-1']
        status = await handle.query(AgentWorkflow.status)
        assert [(a.approved_by, a.required) for a in status.open_approvals] == [(['alice'], 2)]
        with pytest.raises(WorkflowUpdateFailedError) as twice:
            await agents.approve(handle.id, approvals={'t-1': True}, caller='alice')
        assert "'alice' already approved tool call 't-1'; it needs 1 more approval(s)" in str(twice.value.cause)
        assert ran == []
        assert await agents.approve(handle.id, approvals={'t-1': True}, caller='bob') is None
        result = await handle.result()

    assert sorted(ran) == [('archive', 'a.txt'), ('transfer', 900)]
    archive, transfer = sorted(result.decisions, key=lambda record: record.tool_name)
    assert (archive.decision, archive.by, archive.args_digest) == (
        'approve',
        ['ops-console'],
        args_digest({'path': 'a.txt'}),
    )
    assert (transfer.decision, transfer.by, transfer.args_digest) == (
        'approve',
        ['alice', 'bob'],
        args_digest({'amount': 900}),
    )
    assert [(v.by, v.decision) for v in transfer.votes] == [('alice', 'approve'), ('bob', 'approve')]
    assert transfer.at == transfer.votes[-1].at >= transfer.votes[0].at


async def test_a_denial_by_any_allowed_approver_denies_the_call_at_once(client: Client, task_queue: str) -> None:
    ran.clear()
    async with waiting_run(client, task_queue, {'transfer': TWO_OF_THREE}) as (agents, handle):
        await agents.approve(handle.id, approvals={'t-1': True}, caller='alice')
        await agents.approve(handle.id, approvals={'t-1': ToolDenied('not this month')}, caller='carol')
        result = await handle.result()
    assert ran == []
    (record,) = result.decisions
    assert (record.decision, record.by, record.reason) == ('deny', ['carol'], 'not this month')
    assert [(v.by, v.decision) for v in record.votes] == [('alice', 'approve'), ('carol', 'deny')]
    assert 'transfer=not this month' in result.output


async def test_approvals_of_other_arguments_do_not_add_up(client: Client, task_queue: str) -> None:
    ran.clear()
    async with waiting_run(client, task_queue, {'transfer': TWO_OF_THREE}) as (agents, handle):
        smaller = ToolApproved(override_args={'amount': 500})
        await agents.approve(handle.id, approvals={'t-1': smaller}, caller='alice')
        with pytest.raises(WorkflowUpdateFailedError) as other:
            await agents.approve(handle.id, approvals={'t-1': True}, caller='bob')
        assert "'bob' approves other arguments for tool call 't-1' than 'alice' did" in str(other.value.cause)
        await agents.approve(handle.id, approvals={'t-1': smaller}, caller='bob')
        result = await handle.result()
    assert ran == [('transfer', 500)]
    (record,) = result.decisions
    assert (record.decision, record.by, record.args_digest) == (
        'override',
        ['alice', 'bob'],
        args_digest({'amount': 500}),
    )


async def test_roles_and_a_rule_given_as_a_function(client: Client, task_queue: str) -> None:
    ran.clear()
    rules = {
        'transfer': ApprovalRule(approvers={'role:finance'}),
        # A function of the caller and the call, run in the workflow: only an owner of the path may archive it.
        'archive': ApprovalRule(approvers=lambda caller, call: call.args_as_dict()['path'].startswith(caller[0])),
    }
    roles = {'finance': {'erin', 'frank'}}
    async with waiting_run(client, task_queue, rules, TRANSFER, ARCHIVE, roles=roles) as (agents, handle):
        assert await pending_ids(agents, handle.id, 'erin') == ['t-1']
        assert await pending_ids(agents, handle.id, 'ann') == ['a-1']
        assert await agents.pending(handle.id, caller='zed') is None
        with pytest.raises(WorkflowUpdateFailedError):
            await agents.approve(handle.id, approvals={'t-1': True, 'a-1': True}, caller='erin')
        await agents.approve(handle.id, approvals={'t-1': True}, caller='erin')
        await agents.approve(handle.id, approvals={'a-1': False}, caller='ann')
        result = await handle.result()
    assert ran == [('transfer', 900)]
    assert [(r.tool_call_id, r.decision, r.by) for r in result.decisions] == [
        ('t-1', 'approve', ['erin']),
        ('a-1', 'deny', ['ann']),
    ]


async def pending_ids(agents: AgentClient, workflow_id: str, caller: str) -> list[str]:
    pending = await agents.pending(workflow_id, caller=caller)
    assert pending is not None, f'nothing pending for {caller}'
    return [call.tool_call_id for call in pending.approvals]


async def test_the_inbox_lists_for_an_identity_only_what_it_may_answer_now(client: Client, task_queue: str) -> None:
    async with waiting_run(client, task_queue, {'transfer': TWO_OF_THREE}) as (agents, handle):

        async def listed(caller: str) -> bool:
            return any(run.workflow_id == handle.id for run in await agents.inbox(caller=caller))

        async with asyncio.timeout(WAIT):  # visibility lags a moment behind the run
            while not await listed('alice'):  # noqa: ASYNC110 (polling the server; nothing here to signal)
                await asyncio.sleep(0.1)
        assert not await listed('dave')
        await agents.approve(handle.id, approvals={'t-1': True}, caller='alice')
        assert not await listed('alice')  # approved already: nothing left for alice to answer
        (run,) = [run for run in await agents.inbox(caller='bob') if run.workflow_id == handle.id]
        assert run.pending is not None
        assert [c.tool_call_id for c in run.pending.approvals] == ['t-1']
        await handle.terminate('done')


async def test_decision_records_are_the_same_after_a_replay(client: Client, task_queue: str) -> None:
    ran.clear()
    durable = DurableAgent(payments_agent(TRANSFER, ARCHIVE), approval_rules={'transfer': TWO_OF_THREE})
    async with waiting_run(client, task_queue, {}, durable=durable) as (agents, handle):
        await agents.approve(handle.id, approvals={'a-1': True}, caller='carol')
        await agents.approve(handle.id, approvals={'t-1': True}, caller='alice')
        before = await handle.query(AgentWorkflow.status)
    # A new worker without the run in its cache replays it from history to answer.
    async with build_worker(client, {'payments': durable}, task_queue=task_queue, max_cached_workflows=0):
        after = await handle.query(AgentWorkflow.status)
        assert after.open_approvals == before.open_approvals
        assert [a.approved_by for a in after.open_approvals] == [['alice']]
        await AgentClient(client, task_queue=task_queue).approve(handle.id, approvals={'t-1': True}, caller='bob')
        result = await handle.result()
        replayed = await handle.query(AgentWorkflow.status)
    assert replayed.decisions == result.decisions
    assert [(r.tool_call_id, r.by) for r in result.decisions] == [('t-1', ['alice', 'bob']), ('a-1', ['carol'])]


async def test_an_expired_request_is_denied_and_the_model_is_told(time_skipping_env: WorkflowEnvironment) -> None:
    ran.clear()
    rule = ApprovalRule(approvers={'alice', 'bob'}, required_approvals=2, expires_after_seconds=3600)
    async with waiting_run(time_skipping_env.client, f'expiry-{uuid.uuid4().hex[:8]}', {'transfer': rule}) as (
        agents,
        handle,
    ):
        await agents.approve(handle.id, approvals={'t-1': True}, caller='alice')
        result = await handle.result()  # the time-skipping server fires the hour's timer at once
    assert ran == []
    (record,) = result.decisions
    assert (record.decision, record.by, record.reason) == ('deny', [], rule.expiry_message)
    assert f'transfer={rule.expiry_message}' in result.output


async def test_an_expired_request_can_escalate_to_the_run_timeout_policy(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    rule = ApprovalRule(approvers={'alice'}, expires_after_seconds=3600, on_expiry='escalate')
    policy = ApprovalPolicy(timeout_seconds=7 * 24 * 3600, on_timeout='fail')
    async with waiting_run(
        time_skipping_env.client, f'expiry-{uuid.uuid4().hex[:8]}', {'transfer': rule}, policy=policy
    ) as (_, handle):
        with pytest.raises(WorkflowFailureError) as failed:
            await handle.result()
    assert "['t-1'] were not resolved" in str(failed.value.cause)


async def test_a_resume_token_answer_meets_the_rules_and_is_recorded(client: Client, task_queue: str) -> None:
    inbox = Inbox()
    rules = {'delete_file': ApprovalRule(approvers={'alice'})}
    durable = DurableAgent(file_agent('filer', inbox), approval_rules=rules)
    async with build_worker(client, {'filer': durable}, task_queue=task_queue):
        agents = AgentClient(client, task_queue=task_queue)
        handle = await agents.start('filer', 'Delete a.txt')
        token = await inbox.token_of(handle.id)
        with pytest.raises(TokenRefused) as refused:
            await agents.resolve_token(token, {'approvals': {'del-1': True}}, caller='mallory')
        assert "'mallory' may not approve calls of 'delete_file'." in str(refused.value)
        await agents.submit_token(token, {'approvals': {'del-1': True}}, caller='mallory')  # listed, not taken
        status = await status_when(handle, lambda status: bool(status.rejected))
        assert "'mallory' may not approve" in status.rejected[0].reason
        await agents.resolve_token(token, {'approvals': {'del-1': True}}, caller='alice')
        result = await handle.result()
    assert [(r.tool_call_id, r.decision, r.by) for r in result.decisions] == [('del-1', 'approve', ['alice'])]
