"""The installed `agents` command, driven from a user's folder outside the repository against `agents worker --dev`."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from ._cli_helpers import Done, agents, dev_worker, free_port, user_env, write_project

pytestmark = pytest.mark.asyncio(loop_scope='session')


async def until(command: Callable[[], Awaitable[Done]], accept: Callable[[Done], bool]) -> Done:
    """Run `command` until its result is accepted (bounded: visibility lags a moment behind a change)."""
    done = await command()
    for _ in range(100):
        if accept(done):
            return done
        await asyncio.sleep(0.1)
        done = await command()
    raise AssertionError(f'never accepted: {done}')


async def test_serve_run_inbox_approve_deny_status_result_and_schedules_from_a_users_folder(tmp_path: Path) -> None:
    folder = write_project(tmp_path)
    async with dev_worker(folder) as address:
        env = user_env(TEMPORAL_ADDRESS=address)

        async def cli(*args: str) -> Done:
            return await agents(*args, cwd=folder, env=env)

        started = await cli('run', 'support', 'Clean up my files', '--workflow-id', 'w-1')
        assert (started.code, started.out) == (0, 'w-1\n')
        inbox = await until(lambda: cli('inbox'), lambda done: 'delete-b' in done.out)
        rows = [line.split() for line in inbox.out.splitlines()]
        assert rows[0] == ['WORKFLOW', 'ID', 'AGENT', 'OWNER', 'NEEDS', 'TOOL', 'CALL', 'ID', 'CALL']
        assert ['w-1', 'support', '-', 'approve', 'delete-a', 'delete_file({"path":', '"a.txt"})'] in rows
        assert ['w-1', 'support', '-', 'approve', 'delete-b', 'delete_file({"path":', '"b.txt"})'] in rows

        pending = await cli('pending', 'w-1')
        assert pending.out.splitlines() == [
            '  approve? delete-a: delete_file({"path": "a.txt"})',
            '  approve? delete-b: delete_file({"path": "b.txt"})',
        ]
        denied = await cli('deny', 'w-1', 'delete-b', '--reason', 'Keep b')
        assert denied.out.splitlines() == ['Still pending:', '  approve? delete-a: delete_file({"path": "a.txt"})']
        # Global flags after the subcommand, overriding the environment.
        approved = await agents('approve', 'w-1', 'delete-a', '--address', address, cwd=folder, env=user_env())
        assert approved.out == 'Nothing else is pending.\n', approved.err

        assert (await cli('result', 'w-1')).out == '"deleted a.txt; Keep b"\n'
        assert (await cli('status', 'w-1')).out == 'completed (step 2, 2 requests, 1 tool calls)\n'
        assert (await cli('watch', 'w-1')).out.endswith('"deleted a.txt; Keep b"\n')
        await until(lambda: cli('inbox'), lambda done: done.out == 'Nothing waits for a human.\n')

        created = await cli('schedule', 'create', 'nightly', 'support', 'Tidy up', '--every', '24h')
        assert (
            created.out == "Schedule 'nightly' starts a run of 'support' every 1 day, 0:00:00 on task queue 'agents'.\n"
        )
        listed = await until(lambda: cli('schedule', 'list'), lambda done: 'nightly' in done.out)
        assert listed.out.splitlines()[1].split()[:6] == ['nightly', 'support', 'every', '1', 'day,', '0:00:00']
        assert (await cli('schedule', 'delete', 'nightly')).out == "Deleted schedule 'nightly'.\n"
        await until(lambda: cli('schedule', 'list'), lambda done: done.out == 'No schedules start agent runs.\n')


def one_error(done: Done, *expected: str) -> None:
    """The command failed with exit status 1 and one or two lines naming what was wrong."""
    assert done.code == 1, done
    lines = done.err.splitlines()
    assert 1 <= len(lines) <= 2, done.err
    assert lines[0].startswith('agents: ')
    for text in expected:
        assert text in done.err


async def test_expected_errors_are_one_or_two_lines_and_exit_with_status_1(tmp_path: Path) -> None:
    folder = write_project(tmp_path)
    async with dev_worker(folder) as address:
        env = user_env(TEMPORAL_ADDRESS=address)
        await agents('run', 'support', 'Clean up', '--workflow-id', 'w-2', cwd=folder, env=env)
        await until(lambda: agents('pending', 'w-2', cwd=folder, env=env), lambda done: 'delete-a' in done.out)

        one_error(await agents('approve', 'w-2', 'nope', cwd=folder, env=env), "Unknown tool call id 'nope'", 'pending')
        one_error(await agents('status', 'no-such-run', cwd=folder, env=env), "No run 'no-such-run'", address)
        one_error(
            await agents('run', 'nobody', 'hi', '--watch', cwd=folder, env=env), "No agent is registered as 'nobody'"
        )
        one_error(
            await agents('worker', '--agents', 'nosuch.module:agent', cwd=folder, env=env),
            "Cannot import 'nosuch'",
            str(folder),
        )
        one_error(await agents('worker', '--agents', 'myapp.agents:nobody', cwd=folder, env=env), 'nobody')
        taken = address.rpartition(':')[2]
        one_error(
            await agents('worker', '--agents', 'myapp.agents:support', '--dev', '--port', taken, cwd=folder, env=env),
            f'Port {taken} is taken',
            '--port',
        )
        one_error(
            await agents('status', 'w-2', '--address', f'127.0.0.1:{free_port()}', cwd=folder, env=env),
            'No Temporal server answers at 127.0.0.1:',
            'agents worker',
        )
        # Exiting while the Temporal runtime's threads were alive used to abort some error exits (PyGILState_Release,
        # status 134): ten in a row, with the client connected and without a server, all exit with status 1.
        closed = f'127.0.0.1:{free_port()}'
        for args in (['status', 'no-such-run'], ['approve', 'no-such-run', 'x', '--address', closed]):
            for _ in range(2):
                batch = [agents(*args, cwd=folder, env=env) for _ in range(5)]
                assert [(done.code, 'Fatal' in done.err) for done in await asyncio.gather(*batch)] == [(1, False)] * 5
    usage = await agents('approve', 'w-2', cwd=folder, env=user_env())
    assert usage.code == 2
    assert 'the following arguments are required: TOOL_CALL_ID' in usage.err
