"""The commands of docs/deploys.md and of the README's "Changing agents while runs wait" work as written.

A user's project (`myapp.agents:support`) serves a run waiting for approval and a completed run on
`agents worker --dev`; the check of the page and of the README pass for that code, as does the deploy job's
recipe. Then the project changes under the waiting run (`delete_file` no longer requires approval): the recipe's
check exits 1 with a line per run naming the change, and the job stops there.
"""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client, WorkflowHandle

from tests._docs import blocks, commands
from workflows import AgentWorkflow
from workflows._search_attributes import AGENT_NAME

from ._cli_helpers import AGENT_MODULE, AGENTS, Done, dev_worker, shell, user_env, write_project
from .test_replay_check import until

DEPLOYS = 'docs/deploys.md'
README = 'README.md'
CHECK = 'Check before you deploy'
RECIPE = 'A deploy job that checks first'
POINTER = 'Changing agents while runs wait'
WAIT = 20.0
"""The bound on the runs' waits (their first model request, the visibility listing them)."""


def block(page: str, section: str) -> str:
    (found,) = blocks(page, 'bash', section=section)
    return found.source.strip()


def test_the_blocks_check_the_projects_agent() -> None:
    for page, section in ((DEPLOYS, CHECK), (README, POINTER), (DEPLOYS, RECIPE)):
        (command,) = commands(block(page, section))
        words = shlex.split(command, comments=True)
        assert words[:4] == ['agents', 'replay-check', '--agents', 'myapp.agents:support'], (page, section)


async def _waits(handle: WorkflowHandle[Any, Any]) -> bool:
    return await handle.query(AgentWorkflow.pending_deferred_tools) is not None


async def _two_runs(folder: Path, env: dict[str, str], client: Client) -> tuple[str, str]:
    """A run waiting for its approvals and a completed run of `support`, listed by the server."""
    ids = ('support-waiting', 'support-done')
    for workflow_id in ids:
        started = await shell(
            AGENTS, 'run', 'support', 'Clean up my files', '--workflow-id', workflow_id, cwd=folder, env=env
        )
        assert started.code == 0, started.err
    for workflow_id in ids:
        handle = client.get_workflow_handle(workflow_id)
        await until(lambda handle=handle: _waits(handle), WAIT)
    approved = await shell(AGENTS, 'approve', ids[1], 'delete-a', 'delete-b', cwd=folder, env=env)
    assert approved.code == 0, approved.err
    await client.get_workflow_handle(ids[1]).result()

    async def listed() -> bool:  # visibility lags the runs a little
        return (await client.count_workflows(f"{AGENT_NAME.name} = 'support'")).count == 2

    await until(listed, WAIT)
    return ids


@pytest.mark.asyncio(loop_scope='session')
@pytest.mark.slow(25)
async def test_the_check_passes_for_the_same_code_and_stops_the_deploy_job_for_a_breaking_change(
    tmp_path: Path,
) -> None:
    folder = write_project(tmp_path)
    async with dev_worker(folder) as address:
        env = user_env(TEMPORAL_ADDRESS=address)
        client = await Client.connect(address)
        waiting, done = await _two_runs(folder, env, client)

        async def typed(command: str) -> Done:
            return await shell('bash', '-c', command, cwd=folder, env=env)

        checks = await asyncio.gather(typed(block(DEPLOYS, CHECK)), typed(block(README, POINTER)))
        for check in checks:
            assert check.code == 0, check.err
            assert sorted(check.out.splitlines()[:2]) == [
                f'{done}  support  closed  replays',
                f'{waiting}  support  open  replays',
            ]
        recipe = await typed(block(DEPLOYS, RECIPE))
        assert recipe.code == 0, recipe.err
        assert recipe.out.splitlines()[-1] == 'safe for waiting runs'

        # The change goes into the checkout: the job's check refuses it.
        changed = AGENT_MODULE.replace('@support.tool(requires_approval=True)', '@support.tool')
        assert changed != AGENT_MODULE
        (folder / 'myapp' / 'agents.py').write_text(changed)
        recipe = await typed(block(DEPLOYS, RECIPE))
    assert recipe.code == 1, recipe.err
    lines = recipe.out.splitlines()
    assert 'safe for waiting runs' not in lines
    cause = (
        "tool 'delete_file' no longer requires approval, but call delete-a waits for one; "
        "tool 'delete_file' no longer requires approval, but call delete-b waits for one"
    )
    runs = sorted(line for line in lines if line.startswith('support-'))
    assert [line.partition(': ')[0] for line in runs] == [
        f'{done}  support  closed  would fail',
        f'{waiting}  support  open  would fail',
    ]
    assert all(line.endswith(cause) for line in runs), runs
    assert lines[-1] == '2 runs of support since 7d: 0 replay, 2 would fail, 0 would change'
