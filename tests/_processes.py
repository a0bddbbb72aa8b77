"""Processes a test starts, each in a process group of its own that is killed whole whatever the test's outcome.

A command the tests drive may start processes of its own: `agents worker --dev` and `agents demo` start a Temporal dev
server. Killing only the command (what `subprocess.run`'s timeout and `Popen.kill` do) leaves that server running,
holding a port and a core, and the pipes the test never closed then raise `ResourceWarning` in whatever test runs
next, which `filterwarnings = error` turns into that test's failure. So every process here starts in a new session
(its own process group), and leaving the `with` block kills the group with SIGKILL and reaps the process, after the
test has stopped it the gentle way or when it failed half-way.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager, suppress
from pathlib import Path
from typing import Any

REAP_TIMEOUT = 30
"""Seconds to wait for a killed process's pipes to close (a process that outlives SIGKILL is a kernel's problem)."""


def kill_group(pid: int) -> None:
    """SIGKILL the process group `pid` leads, if anything of it is left."""
    with suppress(ProcessLookupError):  # the process and everything it started have ended
        os.killpg(pid, signal.SIGKILL)


@asynccontextmanager
async def started(*args: str | Path, **kwargs: Any) -> AsyncIterator[asyncio.subprocess.Process]:
    """`asyncio.create_subprocess_exec(*args, **kwargs)` in a group of its own, killed whole and reaped on exit."""
    process = await asyncio.create_subprocess_exec(*args, start_new_session=True, **kwargs)
    try:
        yield process
    finally:
        kill_group(process.pid)
        # Reading to the end closes the pipes' transports, which would otherwise warn when collected.
        await asyncio.wait_for(process.communicate(), REAP_TIMEOUT)


@contextmanager
def popen(args: Sequence[str | Path], **kwargs: Any) -> Iterator[subprocess.Popen[str]]:
    """`subprocess.Popen(args, text=True, **kwargs)` in a group of its own, killed whole and reaped on exit."""
    with subprocess.Popen(args, text=True, start_new_session=True, **kwargs) as process:  # exit: closes pipes, waits
        try:
            yield process
        finally:
            kill_group(process.pid)


def run(
    args: Sequence[str | Path], *, timeout: float, input: str | None = None, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """`subprocess.run(args, capture_output=True, text=True)`, whose timeout kills the command's whole group.

    With no `input`, the command reads an empty stdin rather than the test's.
    """
    stdin = subprocess.PIPE if input is not None else subprocess.DEVNULL
    with popen(args, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs) as process:
        out, err = process.communicate(input, timeout=timeout)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)
