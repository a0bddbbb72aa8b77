"""Runs triggered by a Temporal Schedule: created with the client helper or the `temporal` CLI."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import pytest
from temporalio.client import Client, ScheduleHandle
from temporalio.testing import WorkflowEnvironment

from agent import UserError
from worker import build_worker
from workflows import AgentRunOutput
from workflows.client import AgentClient

from .test_agent_workflow import AGENTS, tool_log
from .test_cli_contract import temporal

pytestmark = pytest.mark.asyncio(loop_scope='session')


async def first_run_result(client: Client, schedule: ScheduleHandle) -> AgentRunOutput:
    for _ in range(100):  # bounded: the schedule starts the run asynchronously
        actions = (await schedule.describe()).info.recent_actions
        if actions:
            workflow_id = actions[0].action.workflow_id  # type: ignore[attr-defined]
            return await AgentClient(client).result(workflow_id)
        await asyncio.sleep(0.1)
    raise AssertionError('the schedule never started a run')


async def test_a_triggered_schedule_runs_the_agent_to_completion(client: Client, task_queue: str) -> None:
    tool_log.clear()
    agents = AgentClient(client, task_queue=task_queue)
    schedule_id = f'sched-{uuid.uuid4()}'
    async with build_worker(client, AGENTS, task_queue=task_queue):
        schedule = await agents.create_schedule(
            schedule_id, 'lookup_agent', 'Daily balance', every=timedelta(days=1), paused=True, deps={'owner': 'ops'}
        )
        try:
            await schedule.trigger()
            result = await first_run_result(client, schedule)
        finally:
            await schedule.delete()
    assert result.output == 'lookup=balance of ops: 42; owner=ops'


async def test_schedules_created_with_the_cli_start_the_same_workflow(
    temporal_env: WorkflowEnvironment, client: Client, task_queue: str
) -> None:
    schedule_id = f'cli-sched-{uuid.uuid4()}'
    async with build_worker(client, AGENTS, task_queue=task_queue):
        await temporal(
            temporal_env,
            'schedule', 'create',
            '--schedule-id', schedule_id,
            '--interval', '24h',
            '--paused',
            '--workflow-id', f'{schedule_id}-run',
            '--type', 'AgentWorkflow',
            '--task-queue', task_queue,
            '--input', '{"agent": "lookup_agent", "prompt": "balance", "deps": {"owner": "cli"}}',
        )  # fmt: skip
        schedule = client.get_schedule_handle(schedule_id)
        try:
            await schedule.trigger()
            result = await first_run_result(client, schedule)
        finally:
            await schedule.delete()
    assert result.output == 'lookup=balance of cli: 42; owner=cli'


async def test_a_schedule_needs_exactly_one_timing(client: Client) -> None:
    with pytest.raises(UserError, match='exactly one of every='):
        await AgentClient(client).create_schedule('s', 'lookup_agent')
