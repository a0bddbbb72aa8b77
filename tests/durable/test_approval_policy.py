"""Approval policies on durable timers, tested with the time-skipping server (days pass in milliseconds)."""

from __future__ import annotations

import time
import uuid

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.testing import WorkflowEnvironment

from agent import Agent, DeferredToolResults
from agent.messages import ToolCallPart
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow, ApprovalPolicy, DeferredNotice, DurableAgent

from .test_agent_workflow import scripted

pytestmark = pytest.mark.asyncio(loop_scope='session')

DAY = 24 * 3600.0
notices: list[DeferredNotice] = []


async def record_notice(notice: DeferredNotice) -> None:
    notices.append(notice)


def transfer_agent() -> Agent[None, str]:
    agent = Agent(scripted(ToolCallPart('transfer', {'amount': 900}, 't-1')), name='transfer_agent')

    @agent.tool_plain(requires_approval=True)
    def transfer(amount: int) -> str:
        return f'sent {amount}'

    return agent


def agents(policy: ApprovalPolicy) -> dict[str, DurableAgent]:
    return {'transfer_agent': DurableAgent(transfer_agent(), approval_policy=policy, notifier=record_notice)}


async def run(env: WorkflowEnvironment, policy: ApprovalPolicy, **input_fields: object) -> AgentRunOutput:
    task_queue = f'policy-{uuid.uuid4().hex[:8]}'
    async with build_worker(env.client, agents(policy), task_queue=task_queue):
        return await env.client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='transfer_agent', prompt='pay the invoice', **input_fields),  # type: ignore[arg-type]
            id=f'policy-{uuid.uuid4()}',
            task_queue=task_queue,
        )


async def test_a_seven_day_timeout_denies_the_call_with_reminders_in_well_under_a_second(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    notices.clear()
    started = time.monotonic()
    result = await run(time_skipping_env, ApprovalPolicy(timeout_seconds=7 * DAY, remind_every_seconds=2 * DAY))
    elapsed = time.monotonic() - started
    assert result.output == 'transfer=No decision was made in time, so the tool call was not run.'
    assert [n.reminder for n in notices] == [0, 1, 2, 3]
    assert all([c.tool_call_id for c in n.requests.approvals] == ['t-1'] for n in notices)
    assert elapsed < 5  # seven simulated days


async def test_timeout_can_fail_the_run(time_skipping_env: WorkflowEnvironment) -> None:
    with pytest.raises(WorkflowFailureError) as info:
        await run(time_skipping_env, ApprovalPolicy(timeout_seconds=DAY, on_timeout='fail'))
    assert "Deferred tool calls ['t-1'] were not resolved within 86400.0 seconds" in str(info.value.cause)


async def test_timeout_can_end_the_run_returning_the_requests(time_skipping_env: WorkflowEnvironment) -> None:
    result = await run(time_skipping_env, ApprovalPolicy(timeout_seconds=DAY, on_timeout='end'))
    assert isinstance(result.output, dict)
    assert [call['tool_call_id'] for call in result.output['approvals']] == ['t-1']


async def test_a_runs_input_policy_overrides_the_agents(time_skipping_env: WorkflowEnvironment) -> None:
    result = await run(
        time_skipping_env,
        ApprovalPolicy(timeout_seconds=DAY, on_timeout='fail'),
        approval_policy=ApprovalPolicy(timeout_seconds=DAY, deny_message='Too late.'),
    )
    assert result.output == 'transfer=Too late.'


async def test_results_before_the_timeout_let_the_call_run(time_skipping_env: WorkflowEnvironment) -> None:
    task_queue = f'policy-{uuid.uuid4().hex[:8]}'
    client = time_skipping_env.client
    async with build_worker(client, agents(ApprovalPolicy(timeout_seconds=DAY)), task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='transfer_agent', prompt='pay'),
            id=f'policy-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        await handle.signal(AgentWorkflow.submit_deferred_tool_results, DeferredToolResults(approvals={'t-1': True}))
        result = await handle.result()
    assert result.output == 'transfer=sent 900'


async def test_invalid_policies_are_rejected() -> None:
    with pytest.raises(ValueError, match='timeout_seconds must be positive'):
        ApprovalPolicy(timeout_seconds=0)
    with pytest.raises(ValueError, match="on_timeout must be 'deny', 'fail' or 'end'"):
        ApprovalPolicy(on_timeout='ignore')  # type: ignore[arg-type]
