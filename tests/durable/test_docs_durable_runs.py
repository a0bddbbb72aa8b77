"""The terminal commands of docs/durable-runs.md and docs/approvals.md work as written against `agents worker --dev`.

The first bash block of docs/durable-runs.md ("Serve agents") starts the worker the other blocks use (on free ports,
reached through the `TEMPORAL_ADDRESS` it prints). Every other bash block of the two pages ("Start a run from any
Temporal client", "Drive runs from a terminal or from Python", "Run on a schedule"; "Answer from a terminal") is a
story of its own, about a run or a schedule of its own: they run side by side, each command by command in a user's
folder. Placeholders (`<tool_call_id>`, ...) are filled with the ids the run waits for, once it waits.
"""

from __future__ import annotations

import asyncio
import re
import shlex
from pathlib import Path

import pytest
from temporalio.service import RPCError

from tests._docs import blocks, commands
from workflows.client import AgentClient

from ._cli_helpers import AT_ONCE, Done, dev_worker, shell, user_env, write_project

DURABLE_RUNS = 'docs/durable-runs.md'
APPROVALS = 'docs/approvals.md'
SERVE = 'Serve agents'
STORIES = {
    DURABLE_RUNS: (
        'Start a run from any Temporal client',
        'Drive runs from a terminal or from Python',
        'Run on a schedule',
    ),
    APPROVALS: ('Answer from a terminal',),
}
"""The sections whose bash blocks run against the worker, by page."""


def worker_command() -> str:
    (block,) = blocks(DURABLE_RUNS, 'bash', section=SERVE)
    (command,) = commands(block.source)
    return command


def stories() -> list[list[str]]:
    """The commands of each story's block."""
    return [
        commands(block.source)
        for page, sections in STORIES.items()
        for name in sections
        for block in blocks(page, 'bash', section=name)
    ]


def test_the_page_starts_the_worker_the_other_commands_use() -> None:
    assert shlex.split(worker_command(), comments=True) == [
        'agents',
        'worker',
        '--agents',
        'myapp.agents:support',
        '--dev',
    ]
    assert blocks(DURABLE_RUNS, 'bash')[0].section == SERVE
    told = stories()
    assert len(told) == 4
    assert all(shlex.split(c, comments=True)[0] in ('agents', 'temporal') for block in told for c in block)


async def answering(agents: AgentClient, workflow_id: str) -> None:
    """Wait until the run answers queries (a person types slower than the server runs its first task)."""
    for _ in range(100):
        try:
            await agents.status(workflow_id)
            return
        except RPCError:  # not started yet, or busy with its first workflow task
            await asyncio.sleep(0.1)
    raise AssertionError(f'{workflow_id} never answered')


@pytest.mark.asyncio(loop_scope='session')
@pytest.mark.slow(18)
async def test_the_durable_run_and_approval_commands_work_as_written(tmp_path: Path) -> None:
    extra = shlex.split(worker_command(), comments=True)[5:]  # anything after --dev
    folder = write_project(tmp_path)
    slots = asyncio.Semaphore(AT_ONCE)
    async with dev_worker(folder, *extra) as address:
        env = user_env(TEMPORAL_ADDRESS=address)
        agents = await AgentClient.connect(address)

        async def typed(command: str) -> Done:
            async with slots:
                return await shell('bash', '-c', command, cwd=folder, env=env)

        async def run_story(story: list[str]) -> None:
            subject = re.findall(r'(support-\d|nightly-report)', ' '.join(story))[0]
            for command in story:
                ids = re.findall(r'(support-\d)', command)
                if ids and 'workflow start' not in command and ' run ' not in command:
                    await answering(agents, ids[0])
                if re.search(r'<[a-z_-]+>', command):
                    pending = None
                    for _ in range(100):  # bounded: the run asks for approvals after its first model request
                        if (pending := await agents.pending(ids[0])) is not None:
                            break
                        await asyncio.sleep(0.1)
                    assert pending is not None
                    first_id, *others = [call.tool_call_id for call in pending.approvals]
                    command = re.sub(r'<tool[_-]call[_-]id>', first_id, command)
                    command = re.sub(r'<other[_-](tool-call-)?id>', others[0] if others else first_id, command)
                done = await typed(command)
                listing = command.startswith(('agents inbox', 'agents schedule list'))
                for _ in range(100):  # bounded: visibility (inbox, schedules) lags a moment behind
                    assert done.code == 0, f'{command}\n{done.err}'
                    if not listing or subject in done.out:
                        break
                    await asyncio.sleep(0.1)
                    done = await typed(command)
                else:
                    raise AssertionError(f'{command} never listed {subject}:\n{done.out}')
                if command.startswith('agents result'):
                    assert done.out.strip().startswith('"deleted a.txt; ')

        # Each block is a story of its own (its own run or schedule): they run side by side, each command by command,
        # as the `agents` commands spend most of their time importing the SDK.
        async with asyncio.TaskGroup() as running:
            for story in stories():
                running.create_task(run_story(story))
