"""The language-neutral contract (docs/reference.md), driven by the `temporal` CLI as docs/durable-runs.md shows it."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from tests._processes import started
from worker import build_worker, temporal_cli_path

from .test_agent_workflow import AGENTS, tool_log

pytestmark = pytest.mark.asyncio(loop_scope='session')


async def temporal(env: WorkflowEnvironment, *args: str) -> str:
    address = env.client.service_client.config.target_host
    async with started(
        temporal_cli_path(),
        *args,
        '--address',
        address,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    ) as process:
        out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, err.decode()
    return out.decode()


async def query(env: WorkflowEnvironment, workflow_id: str, name: str) -> object:
    out = await temporal(env, 'workflow', 'query', '--workflow-id', workflow_id, '--name', name, '--output', 'json')
    return json.loads(out)['queryResult'][0]


async def poll_status(env: WorkflowEnvironment, workflow_id: str, state: str) -> dict[str, object]:
    """Query `status` until it reports `state` (bounded: a remote query cannot be awaited as an event)."""
    for _ in range(100):
        status = await query(env, workflow_id, 'status')
        assert isinstance(status, dict)
        if status['state'] == state:
            return status
        await asyncio.sleep(0.1)
    raise AssertionError(f'workflow never reached {state!r}')


async def test_start_query_signal_and_result_from_the_cli(
    temporal_env: WorkflowEnvironment, client: Client, task_queue: str
) -> None:
    tool_log.clear()
    workflow_id = f'cli-{uuid.uuid4()}'
    async with build_worker(client, AGENTS, task_queue=task_queue):
        await temporal(
            temporal_env,
            'workflow', 'start',
            '--type', 'AgentWorkflow',
            '--task-queue', task_queue,
            '--workflow-id', workflow_id,
            '--input', '{"agent": "approval_agent", "prompt": "clean up"}',
        )  # fmt: skip
        status = await poll_status(temporal_env, workflow_id, 'awaiting_deferred_tools')
        pending = await query(temporal_env, workflow_id, 'pending_deferred_tools')
        assert [call['tool_call_id'] for call in pending['approvals']] == ['del-a', 'del-b']  # type: ignore[index]

        await temporal(
            temporal_env,
            'workflow', 'signal',
            '--workflow-id', workflow_id,
            '--name', 'submit_deferred_tool_results',
            '--input', '{"approvals": {"del-a": true, "del-b": {"message": "not b"}}}',
        )  # fmt: skip
        out = await temporal(temporal_env, 'workflow', 'result', '--workflow-id', workflow_id, '--output', 'json')
    result = json.loads(out)['result']
    assert result['output'] == 'delete_file=deleted a.txt; delete_file=not b'
    assert tool_log == [('delete_file', 'a.txt')]
    assert status['state'] == 'awaiting_deferred_tools'
