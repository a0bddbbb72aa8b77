"""The inbox when some waiting runs have no worker to answer for them: together they cost one query timeout."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
from temporalio.client import Client

from agent import Agent
from agent.messages import ToolCallPart
from worker import build_worker
from workflows._inbox import QUERIES_AT_ONCE, QUERY_TIMEOUT, waiting_runs_query
from workflows.client import AgentClient

from .test_agent_workflow import wait_for_status
from .waiting_agent import WAIT, calls_then_reports

pytestmark = pytest.mark.asyncio(loop_scope='session')

UNANSWERED = QUERIES_AT_ONCE + 4  # more than are asked at once: the inbox still answers within one timeout


def deleting_agent(name: str) -> Agent[None, str]:
    agent = Agent(calls_then_reports(ToolCallPart('delete_file', {'path': 'a.txt'}, 'del-1')), name=name)

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        return f'File {path!r} deleted'

    return agent


async def test_runs_whose_worker_stopped_are_listed_without_details_after_one_query_timeout(
    client: Client, task_queue: str
) -> None:
    name = f'unanswered_{uuid.uuid4().hex[:8]}'
    agents = AgentClient(client, task_queue=task_queue)
    async with build_worker(client, {name: deleting_agent(name)}, task_queue=task_queue):
        handles = [await agents.start(name, 'tidy up') for _ in range(UNANSWERED)]
        for handle in handles:
            await wait_for_status(handle, 'awaiting_deferred_tools')
    try:
        # The worker has stopped: nothing answers these runs' queries any more.
        query = f'{waiting_runs_query()} AND AgentName = {name!r}'
        async with asyncio.timeout(WAIT):  # visibility lags a moment behind the runs
            while len([e async for e in client.list_workflows(query)]) < UNANSWERED:  # noqa: ASYNC110 (polling the server)
                await asyncio.sleep(0.1)

        started = time.monotonic()
        listed = [run for run in await agents.inbox() if run.agent == name]
        took = time.monotonic() - started

        assert sorted(run.workflow_id for run in listed) == sorted(handle.id for handle in handles)
        assert all(run.pending is None for run in listed)  # still waiting for a person; what for, only its worker knows
        # One after another they would take UNANSWERED timeouts, in batches two; against one deadline, about one.
        assert took < 2 * QUERY_TIMEOUT.total_seconds(), took
        # Asked for an identity, a run that cannot say what that identity may answer is left out.
        assert [run for run in await agents.inbox(caller='alice') if run.agent == name] == []
    finally:
        for handle in handles:
            await handle.terminate('test over')  # no run of this test is left waiting for the next
