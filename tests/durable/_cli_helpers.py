"""Drive the installed `agents` command from a folder outside the repository, as a user would."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import sys
import sysconfig
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from tests._processes import started

AGENTS = os.path.join(sysconfig.get_path('scripts'), 'agents')
"""The console script `pip install -e .` put next to the interpreter."""

AGENT_MODULE = '''\
from agent import Agent, RunContext
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel


def _script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Asks to delete two files, then reports what became of each."""
    returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    if not returns:
        return ModelResponse(parts=[
            ToolCallPart('delete_file', {'path': 'a.txt'}, 'delete-a'),
            ToolCallPart('delete_file', {'path': 'b.txt'}, 'delete-b'),
        ])
    return ModelResponse(parts=[TextPart('; '.join(str(r.content) for r in returns))])


support = Agent(FunctionModel(_script), name='support')


@support.tool(requires_approval=True)
def delete_file(ctx: RunContext[None], path: str) -> str:
    """Delete a file."""
    return f'deleted {path}'
'''


def write_project(folder: Path) -> Path:
    """A user's project: the package `myapp` with the agent `myapp.agents:support`."""
    package = folder / 'myapp'
    package.mkdir()
    (package / '__init__.py').write_text('')
    (package / 'agents.py').write_text(AGENT_MODULE)
    return folder


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return int(probe.getsockname()[1])


def user_env(**extra: str) -> dict[str, str]:
    """The environment of a user's shell: no TEMPORAL_* settings of the machine, no PYTHONPATH to the repo, no
    AGENTS_IDENTITY (which would filter `agents inbox`)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith('TEMPORAL_') and k not in ('PYTHONPATH', 'AGENTS_IDENTITY')
    }
    return {**env, **extra}


@dataclass
class Done:
    """How a command ended."""

    code: int
    out: str
    err: str


COMMAND_TIMEOUT = 60
"""Seconds one command may take."""

AT_ONCE = min(4, os.cpu_count() or 1)
"""Commands a test runs at the same time where they are independent: each is a process that spends a second or more
of CPU importing the SDK, so more than the cores (two on CI) would only queue and stretch each towards its timeout."""


async def agents(*args: str, cwd: Path, env: dict[str, str], program: str = AGENTS, stdin: str | None = None) -> Done:
    """Run `agents ARGS...` (the console script `program`) in `cwd` and wait for it, typing `stdin` if given."""
    return await shell(program, *args, cwd=cwd, env=env, stdin=stdin)


async def shell(*args: str, cwd: Path, env: dict[str, str], stdin: str | None = None) -> Done:
    """Run a command in `cwd` and wait for it (its input: `stdin`, else none).

    Killed with whatever it started if it has not ended within `COMMAND_TIMEOUT` seconds (the test then fails), or if
    the test stops waiting for it (cancelled as a command run alongside it failed its test).
    """
    async with started(
        *args, cwd=cwd, env=env, stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    ) as process:  # fmt: skip
        data = stdin.encode() if stdin is not None else None
        out, err = await asyncio.wait_for(process.communicate(data), COMMAND_TIMEOUT)
    assert process.returncode is not None
    return Done(process.returncode, out.decode(), err.decode())


REPO = Path(__file__).parent.parent.parent
"""The repository, which `python -m doors.cli` runs in."""


async def command(
    *args: str,
    address: str,
    task_queue: str,
    within: float = COMMAND_TIMEOUT,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
) -> Done:
    """`python -m doors.cli --address ADDRESS --task-queue TASK_QUEUE ARGS...`, run in the repository (typing `stdin`
    if given, with the variables `env` added to a user's environment).

    Killed if it has not ended `within` seconds (the test then fails), so a command that hangs is reaped.
    """
    async with started(
        sys.executable, '-m', 'doors.cli', '--address', address, '--task-queue', task_queue, *args,
        cwd=REPO, env=user_env(**(env or {})),
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    ) as process:  # fmt: skip
        data = stdin.encode() if stdin is not None else None
        out, err = await asyncio.wait_for(process.communicate(data), within)
    assert process.returncode is not None
    return Done(process.returncode, out.decode(), err.decode())


@asynccontextmanager
async def dev_worker(folder: Path, *args: str, program: str = AGENTS) -> AsyncIterator[str]:
    """`agents worker --agents myapp.agents:support --dev ARGS...` in `folder`, on free ports.

    Yields the address from the `export TEMPORAL_ADDRESS=...` line it prints; stops it with Ctrl-C (SIGINT).
    """
    port, ui_port = free_port(), free_port()
    async with started(
        program, 'worker', '--agents', 'myapp.agents:support', '--dev', '--port', str(port), '--ui-port', str(ui_port),
        *args, cwd=folder, env=user_env(), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    ) as process:  # fmt: skip
        assert process.stdout is not None
        lines: list[str] = []
        while not any(line.startswith('Worker running') for line in lines):
            line = (await asyncio.wait_for(process.stdout.readline(), 60)).decode()
            assert line, ''.join(lines)
            lines.append(line)
        exports = [m.group(1) for line in lines if (m := re.search(r'export TEMPORAL_ADDRESS=(\S+)', line))]
        assert exports == [f'127.0.0.1:{port}'], lines
        assert any(f'Web UI at http://127.0.0.1:{ui_port}' in line for line in lines), lines
        yield exports[0]
        # The test passed: it stops as a person stops it, and stops cleanly (else the group is killed on the way out).
        process.send_signal(signal.SIGINT)
        rest = (await asyncio.wait_for(process.communicate(), 60))[0].decode()
        assert process.returncode == 0, ''.join(lines) + rest
