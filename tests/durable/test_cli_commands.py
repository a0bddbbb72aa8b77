"""The installed `agents` command, driven from a user's folder outside the repository against `agents worker --dev`."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
import pytest_asyncio

from tests._processes import started

from ._cli_helpers import AGENTS, AT_ONCE, Done, agents, dev_worker, free_port, user_env, write_project

pytestmark = pytest.mark.asyncio(loop_scope='session')


@pytest_asyncio.fixture(scope='module', loop_scope='session')
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[Path, str]]:
    """A user's project folder and the address of the `agents worker --dev` serving it, for all tests here.

    One worker for the module, as starting one takes seconds: each test has runs (workflow ids) of its own.
    """
    folder = write_project(tmp_path_factory.mktemp('project'))
    async with dev_worker(folder) as address:
        yield folder, address


async def until(command: Callable[[], Awaitable[Done]], accept: Callable[[Done], bool]) -> Done:
    """Run `command` until its result is accepted (bounded: visibility lags a moment behind a change)."""
    done = await command()
    for _ in range(100):
        if accept(done):
            return done
        await asyncio.sleep(0.1)
        done = await command()
    raise AssertionError(f'never accepted: {done}')


async def agents_until(folder: Path, env: dict[str, str], text: str, *args: str) -> str:
    """Run `agents ARGS...` until its output shows `text`, then stop it with Ctrl-C; returns the output so far."""
    async with started(
        AGENTS, *args, cwd=folder, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    ) as process:  # fmt: skip
        assert process.stdout is not None
        out = ''
        while text not in out:  # bounded by the read timeout
            line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
            assert line, out
            out += line
        process.send_signal(signal.SIGINT)
        await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 130
    return out


async def test_watch_approves_with_yes_and_tells_how_to_answer_with_no_input(served: tuple[Path, str]) -> None:
    folder, address = served
    env = user_env(TEMPORAL_ADDRESS=address)
    await agents('run', 'support', 'Clean up', '--workflow-id', 'w-3', cwd=folder, env=env)
    told = await agents_until(
        folder, env, 'waits for approval: agents approve w-3 delete-b', 'watch', 'w-3', '--no-input'
    )
    assert 'waits for approval: agents approve w-3 delete-a  (or agents deny)' in told
    yes = await agents('watch', 'w-3', '--yes', cwd=folder, env=env)
    assert yes.code == 0, yes.err
    assert '  approved delete-a (--yes)\n' in yes.out
    assert '  approved delete-b (--yes)\n' in yes.out
    assert yes.out.endswith('"deleted a.txt; deleted b.txt"\n')


async def test_a_run_no_worker_picks_up_is_told_naming_its_task_queue(served: tuple[Path, str]) -> None:
    folder, address = served
    env = user_env(TEMPORAL_ADDRESS=address)
    async with started(
        AGENTS, 'run', 'support', 'hi', '--task-queue', 'nobody-polls', '--watch',
        cwd=folder, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    ) as watcher:  # fmt: skip
        assert watcher.stderr is not None
        told = [(await asyncio.wait_for(watcher.stderr.readline(), 30)).decode() for _ in range(2)]
        watcher.send_signal(signal.SIGINT)
        await asyncio.wait_for(watcher.communicate(), 30)
    assert "no worker polls its task queue 'nobody-polls'" in told[0], told
    assert '--task-queue nobody-polls' in told[1], told
    assert watcher.returncode == 130


def one_error(done: Done, *expected: str) -> None:
    """The command failed with exit status 1 and one or two lines naming what was wrong."""
    assert done.code == 1, done
    lines = done.err.splitlines()
    assert 1 <= len(lines) <= 2, done.err
    assert lines[0].startswith('agents: ')
    for text in expected:
        assert text in done.err


@pytest.mark.timeout(360)  # some thirty commands, each a new process that imports the SDK
@pytest.mark.slow(68)
async def test_expected_errors_are_one_or_two_lines_and_exit_with_status_1(served: tuple[Path, str]) -> None:
    folder, address = served
    env = user_env(TEMPORAL_ADDRESS=address)
    slots = asyncio.Semaphore(AT_ONCE)

    async def cli(*args: str, env: dict[str, str] = env) -> Done:
        async with slots:
            return await agents(*args, cwd=folder, env=env)

    async def errs(args: tuple[str, ...], *expected: str) -> None:
        one_error(await cli(*args), *expected)

    async def unknown_tool_call_id() -> None:
        await cli('run', 'support', 'Clean up', '--workflow-id', 'w-2')
        await until(lambda: cli('pending', 'w-2'), lambda done: 'delete-a' in done.out)
        await errs(('approve', 'w-2', 'nope'), "Unknown tool call id 'nope'", 'pending')
        answered = await cli('approve', 'w-2', 'delete-a', 'delete-b')
        assert answered.code == 0, answered
        await errs(('approve', 'w-2', 'delete-a'), "Run 'w-2' waits for no tool calls now: nothing was sent")

    async def usage() -> None:
        done = await cli('approve', 'w-2', env=user_env())
        assert done.code == 2
        assert 'the following arguments are required: TOOL_CALL_ID' in done.err

    # Exiting while the Temporal runtime's threads were alive used to abort some error exits (PyGILState_Release,
    # status 134): ten in a row, with the client connected and without a server, all exit with status 1.
    closed = f'127.0.0.1:{free_port()}'

    async def exits_with_status_1(*args: str) -> None:
        ends = await asyncio.gather(*(cli(*args) for _ in range(10)))
        assert [(done.code, 'Fatal' in done.err) for done in ends] == [(1, False)] * 10, ends

    taken = address.rpartition(':')[2]
    # Independent commands, side by side (a few at a time): each spends most of its time importing the SDK.
    async with asyncio.TaskGroup() as cases:
        cases.create_task(unknown_tool_call_id())
        cases.create_task(errs(('status', 'no-such-run'), "No run 'no-such-run'", address))
        cases.create_task(errs(('run', 'nobody', 'hi', '--watch'), "No agent is registered as 'nobody'"))
        cases.create_task(errs(('worker', '--agents', 'nosuch.module:agent'), "Cannot import 'nosuch'", str(folder)))
        cases.create_task(errs(('worker', '--agents', 'myapp.agents:nobody'), 'nobody'))
        cases.create_task(
            errs(
                ('worker', '--agents', 'myapp.agents:support', '--dev', '--port', taken),
                f'Port {taken} is taken',
                '--port',
            )
        )
        cases.create_task(
            errs(
                ('status', 'w-2', '--address', f'127.0.0.1:{free_port()}'),
                'No Temporal server answers at 127.0.0.1:',
                'agents worker',
            )
        )
        cases.create_task(usage())
        cases.create_task(exits_with_status_1('status', 'no-such-run'))
        cases.create_task(exits_with_status_1('approve', 'no-such-run', 'x', '--address', closed))
