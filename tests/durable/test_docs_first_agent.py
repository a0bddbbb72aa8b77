"""The README's first durable agent works as written: its module, its worker command and its watched run.

The section's Python block is written to `myapp/agents.py` in a user's folder; its first bash block starts the worker
there (on free ports), its second runs in a second shell against that worker, answering `y` at the prompt, and what
it prints is the section's text block but for the generated workflow id.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests._docs import blocks, commands

from ._cli_helpers import dev_worker, shell, user_env

README = 'README.md'
FIRST_DURABLE_AGENT = 'A first durable agent'


def write_module(folder: Path) -> Path:
    """The user's package `myapp`, its `agents` module the section's Python block."""
    (module,) = blocks(README, 'python', section=FIRST_DURABLE_AGENT)
    assert module.source.startswith('# myapp/agents.py')
    (folder / 'myapp').mkdir()
    (folder / 'myapp' / '__init__.py').write_text('')
    (folder / 'myapp' / 'agents.py').write_text(module.source)
    return folder


def shell_commands() -> tuple[str, str]:
    """The worker's command and the run's, from the section's two bash blocks."""
    (serve,), (run,) = [commands(block.source) for block in blocks(README, 'bash', section=FIRST_DURABLE_AGENT)]
    return serve, run


def test_the_section_serves_the_module_it_shows_and_runs_its_agent() -> None:
    serve, run = shell_commands()
    assert shlex.split(serve) == ['agents', 'worker', '--agents', 'myapp.agents:support', '--dev']
    assert shlex.split(run)[:3] == ['agents', 'run', 'support']


@pytest.mark.asyncio(loop_scope='session')
async def test_the_first_durable_agent_runs_and_waits_for_the_approval_typed_at_the_prompt(tmp_path: Path) -> None:
    _, run = shell_commands()
    (expected,) = blocks(README, 'text', section=FIRST_DURABLE_AGENT)
    folder = write_module(tmp_path)
    async with dev_worker(folder) as address:  # the section's worker command, on free ports
        done = await shell('bash', '-c', run, cwd=folder, env=user_env(TEMPORAL_ADDRESS=address), stdin='y\n')
    assert done.code == 0, done.err
    workflow_id = re.compile(r'^agent-support-[0-9a-f-]{36}$', flags=re.MULTILINE)
    assert workflow_id.sub('<id>', done.out) == workflow_id.sub('<id>', expected.source)
