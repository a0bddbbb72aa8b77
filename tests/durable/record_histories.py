"""Record the histories replayed by `test_replay.py`: `python -m tests.durable.record_histories`.

Re-record only when a workflow change is meant to be incompatible (and version it): the point of the
committed histories is that CI fails when a change would break runs already in flight.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from agent import DeferredToolResults, ToolDenied
from worker import build_worker, temporal_cli_path
from workflows import AgentRunInput, AgentWorkflow

from .test_agent_workflow import AGENTS, wait_for_status

HISTORIES = Path(__file__).parent / 'histories'


async def record() -> None:
    env = await WorkflowEnvironment.start_local(
        data_converter=pydantic_data_converter, dev_server_existing_path=temporal_cli_path()
    )
    try:
        client = env.client
        task_queue = 'replay-queue'
        async with build_worker(client, AGENTS, task_queue=task_queue):
            tools = await client.start_workflow(
                AgentWorkflow.run,
                AgentRunInput(agent='lookup_agent', prompt='What is my balance?', deps={'owner': 'ada'}),
                id='replay-tools',
                task_queue=task_queue,
            )
            await tools.result()
            approval = await client.start_workflow(
                AgentWorkflow.run,
                AgentRunInput(agent='approval_agent', prompt='clean up'),
                id='replay-approval',
                task_queue=task_queue,
            )
            await wait_for_status(approval, 'awaiting_deferred_tools')
            await approval.execute_update(
                AgentWorkflow.resolve_deferred_tools, DeferredToolResults(approvals={'del-b': ToolDenied('keep b')})
            )
            await approval.signal(
                AgentWorkflow.submit_deferred_tool_results, DeferredToolResults(approvals={'del-a': True})
            )
            await approval.result()
            for handle in (tools, approval):
                history = await handle.fetch_history()
                (HISTORIES / f'{handle.id}.json').write_text(history.to_json())
    finally:
        await env.shutdown()


if __name__ == '__main__':
    asyncio.run(record())
