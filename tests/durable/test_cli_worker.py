"""`agents worker --dev` as people run it: the `--agents` flag repeated, and a restart right after Ctrl-C."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from tests._processes import started

from ._cli_helpers import AGENTS, agents, free_port, user_env, write_project

pytestmark = pytest.mark.asyncio(loop_scope='session')

HELPER_MODULE = """\
from agent import Agent
from agent.models.test import TestModel

helper = Agent(TestModel(custom_output_text='glad to help'), name='helper')
"""


@asynccontextmanager
async def dev_worker(folder: Path, port: int, ui_port: int, *agent_args: str) -> AsyncIterator[str]:
    """`agents worker AGENT_ARGS... --dev` on the given ports; yields its `Worker running ...` line.

    Stopped with Ctrl-C (SIGINT), and killed if it does not stop, whatever the test's outcome.
    """
    async with started(
        AGENTS, 'worker', *agent_args, '--dev', '--port', str(port), '--ui-port', str(ui_port),
        cwd=folder, env=user_env(), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    ) as process:  # fmt: skip
        assert process.stdout is not None
        lines: list[str] = []
        while not lines or not lines[-1].startswith('Worker running'):
            line = (await asyncio.wait_for(process.stdout.readline(), 60)).decode()
            assert line, ''.join(lines)  # the worker ended before serving
            lines.append(line)
        yield lines[-1]
        process.send_signal(signal.SIGINT)
        rest = (await asyncio.wait_for(process.communicate(), 60))[0].decode()
        assert process.returncode == 0, ''.join(lines) + rest


async def test_the_agents_flag_repeated_serves_every_agent(tmp_path: Path) -> None:
    folder = write_project(tmp_path)
    (folder / 'myapp' / 'other.py').write_text(HELPER_MODULE)
    port = free_port()
    served = ('--agents', 'myapp.agents:support', '--agents', 'myapp.other:helper')
    async with dev_worker(folder, port, free_port(), *served) as running:
        assert running == "Worker running support, helper on task queue 'agents'\n"
        env = user_env(TEMPORAL_ADDRESS=f'127.0.0.1:{port}')
        support, helper = await asyncio.gather(  # side by side: each command spends most of its time importing
            agents('run', 'support', 'Clean up', cwd=folder, env=env),
            agents('run', 'helper', 'hi', '--watch', cwd=folder, env=env),
        )
    assert support.code == 0, support
    assert helper.code == 0, helper
    assert helper.out.endswith('"glad to help"\n')


async def test_a_dev_worker_restarts_on_its_port_right_after_ctrl_c(tmp_path: Path) -> None:
    folder = write_project(tmp_path)
    port, ui_port = free_port(), free_port()
    async with dev_worker(folder, port, ui_port, '--agents', 'myapp.agents:support'):
        env = user_env(TEMPORAL_ADDRESS=f'127.0.0.1:{port}')
        assert (await agents('run', 'support', 'Clean up', cwd=folder, env=env)).code == 0
    # The stopped server's connections linger in TIME_WAIT on its port for a minute: that must not stop a restart.
    async with dev_worker(folder, port, ui_port, '--agents', 'myapp.agents:support') as running:
        assert running.startswith('Worker running support')
