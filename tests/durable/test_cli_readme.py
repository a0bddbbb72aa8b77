"""The README's terminal commands for durable runs work as written against `agents worker --dev`.

Each bash block of the "Durable runs" section runs command by command in a user's folder, against the worker the
section's first block starts (on free ports, reached through the `TEMPORAL_ADDRESS` it prints); the blocks after it,
each about a run or a schedule of its own, run side by side. Placeholders (`<tool_call_id>`, ...) are filled with the
ids the run waits for, once it waits.
"""

from __future__ import annotations

import asyncio
import re
import shlex
from pathlib import Path

import pytest
from temporalio.service import RPCError

from workflows.client import AgentClient

from ._cli_helpers import AT_ONCE, Done, dev_worker, shell, user_env, write_project

README = Path(__file__).parent.parent.parent / 'README.md'


def durable_run_commands() -> list[list[str]]:
    """The commands of each bash block of the section, a command per (possibly continued) line."""
    section = README.read_text().split('\n## Durable runs\n', 1)[1].split('\n## ', 1)[0]
    blocks: list[list[str]] = []
    for block in re.findall(r'```bash\n(.*?)```', section, flags=re.DOTALL):
        commands: list[str] = []
        current = ''
        for line in block.splitlines():
            current += line + '\n'
            try:
                complete = not current.rstrip().endswith('\\') and bool(shlex.split(current, comments=True))
            except ValueError:  # inside a quoted string that continues on the next line
                continue
            if complete:
                commands.append(current.strip())
                current = ''
        blocks.append(commands)
    return blocks


def test_the_section_starts_the_worker_the_other_commands_use() -> None:
    first, *rest = durable_run_commands()
    assert [shlex.split(c, comments=True) for c in first] == [
        ['agents', 'worker', '--agents', 'myapp.agents:support', '--dev']
    ]
    assert all(shlex.split(c, comments=True)[0] in ('agents', 'temporal') for block in rest for c in block)


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
async def test_the_readme_durable_run_commands_work_as_written(tmp_path: Path) -> None:
    first, *blocks = durable_run_commands()
    extra = shlex.split(first[0], comments=True)[5:]  # anything after --dev
    folder = write_project(tmp_path)
    slots = asyncio.Semaphore(AT_ONCE)
    async with dev_worker(folder, *extra) as address:
        env = user_env(TEMPORAL_ADDRESS=address)
        agents = await AgentClient.connect(address)

        async def typed(command: str) -> Done:
            async with slots:
                return await shell('bash', '-c', command, cwd=folder, env=env)

        async def run_block(commands: list[str]) -> None:
            for command in commands:
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
                    if not listing or 'support-2' in done.out or 'nightly-report' in done.out:
                        break
                    await asyncio.sleep(0.1)
                    done = await typed(command)
                else:
                    raise AssertionError(f'{command} never listed what it should:\n{done.out}')
                if command.startswith('agents result'):
                    assert done.out.strip().startswith('"deleted a.txt; ')

        # Each block is a story of its own (its own run or schedule): they run side by side, each command by command,
        # as the `agents` commands spend most of their time importing the SDK.
        async with asyncio.TaskGroup() as stories:
            for block in blocks:
                stories.create_task(run_block(block))
