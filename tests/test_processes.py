"""The tests' process helpers leave nothing running: a command and what it started die with the test that failed."""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path

import pytest

from tests._processes import popen, run, started

# A command that starts a process of its own (as `agents demo` starts a dev server), says its pid, and waits.
PARENT = ['bash', '-c', 'sleep 600 & echo $!; wait']


def running(pid: int) -> bool:
    """Whether `pid` runs (a zombie, dead but not yet reaped by its new parent, does not)."""
    try:
        status = Path(f'/proc/{pid}/status').read_text()
    except FileNotFoundError:
        return False
    return 'State:\tZ' not in status


def gone(pid: int) -> bool:
    """Whether `pid` has stopped running within 5 s (a killed process takes a moment to die)."""
    deadline = time.monotonic() + 5
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def fails_half_way(children: list[int]) -> None:
    """A test that starts `PARENT`, notes its child in `children`, and fails."""
    with popen(PARENT, stdout=subprocess.PIPE) as process:
        assert process.stdout is not None
        children.append(int(process.stdout.readline()))
        assert running(children[0])
        raise AssertionError('the test failed half-way')


def test_a_test_that_fails_leaves_nothing_its_command_started() -> None:
    children: list[int] = []
    with pytest.raises(AssertionError, match='half-way'):
        fails_half_way(children)
    assert gone(children[0])


def test_a_command_that_times_out_is_killed_with_what_it_started(tmp_path: Path) -> None:
    pid_file = tmp_path / 'child'
    with pytest.raises(subprocess.TimeoutExpired):
        run(['bash', '-c', f'sleep 600 & echo $! > {pid_file}; wait'], timeout=1)
    assert gone(int(pid_file.read_text()))


async def fails_half_way_async(children: list[int]) -> None:
    """`fails_half_way`, with the command started by the asyncio helper."""
    async with started(*PARENT, stdout=asyncio.subprocess.PIPE) as process:
        assert process.stdout is not None
        children.append(int(await asyncio.wait_for(process.stdout.readline(), 10)))
        assert running(children[0])
        raise AssertionError('the test failed half-way')


async def test_an_async_test_that_fails_leaves_nothing_its_command_started() -> None:
    children: list[int] = []
    with pytest.raises(AssertionError, match='half-way'):
        await fails_half_way_async(children)
    assert gone(children[0])
