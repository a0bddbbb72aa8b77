"""The project installed into a fresh virtualenv, its `agents` command driven from a user's folder outside the repo.

Serve (`agents worker --dev`), run, watch with an approval answered at the prompt, inbox, approve, deny, status,
result and schedules: what a new user does after `pip install`, through the console script of that install.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import sysconfig
from collections.abc import Awaitable, Callable
from importlib.util import find_spec
from pathlib import Path

import pytest

from ._cli_helpers import AT_ONCE, Done, agents, dev_worker, user_env, write_project

pytestmark = pytest.mark.asyncio(loop_scope='session')

ROOT = Path(__file__).parent.parent.parent


@pytest.fixture(scope='module')
def installed(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The `agents` script of a fresh virtualenv the project is installed into (dependencies from the running one's)."""
    venv = tmp_path_factory.mktemp('venv')
    subprocess.run([sys.executable, '-m', 'venv', '--without-pip', str(venv)], check=True, timeout=120)
    # The dependencies, and the pip that installs the project, come from the environment running the tests: a `.pth`
    # file puts its site-packages after the new venv's own. (`--system-site-packages` would not do: run from a venv, it
    # gives the base interpreter's packages, which a newcomer's venv install never touched.)
    nested = subprocess.run(
        [venv / 'bin' / 'python', '-c', 'import sysconfig; print(sysconfig.get_path("purelib"))'],
        check=True, timeout=60, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    running = dict.fromkeys([sysconfig.get_path('purelib'), sysconfig.get_path('platlib')])
    (Path(nested) / 'running-environment.pth').write_text(''.join(f'{path}\n' for path in running))
    # Building the editable install needs setuptools with `wheel`; where the system lacks it, pip fetches the build
    # backend from its package index into an isolated build environment instead.
    isolation = ['--no-build-isolation'] if find_spec('wheel') is not None else []
    subprocess.run(
        [venv / 'bin' / 'python', '-m', 'pip', 'install', '--quiet', '--no-deps', *isolation, '-e', str(ROOT)],
        check=True,
        timeout=300,
        cwd=venv,
    )
    script = venv / 'bin' / 'agents'
    assert script.is_file()
    return str(script)


async def until(command: Callable[[], Awaitable[Done]], accept: Callable[[Done], bool]) -> Done:
    """Run `command` until its result is accepted (bounded: visibility lags a moment behind a change)."""
    done = await command()
    for _ in range(100):
        if accept(done):
            return done
        await asyncio.sleep(0.1)
        done = await command()
    raise AssertionError(f'never accepted: {done}')


def in_order(out: str, *expected: str) -> None:
    """Each expected text appears in `out`, in this order."""
    at = 0
    for text in expected:
        found = out.find(text, at)
        assert found >= 0, f'{text!r} not found after position {at} in:\n{out}'
        at = found + len(text)


def rows_of(done: Done, workflow_id: str) -> list[list[str]]:
    """The inbox's rows (split on spaces) of the run `workflow_id`."""
    return [row for row in (line.split() for line in done.out.splitlines()) if row[:1] == [workflow_id]]


@pytest.mark.timeout(360)  # some thirty commands, each a new process that imports the SDK
@pytest.mark.slow(54)
async def test_serve_run_watch_inbox_approve_deny_status_result_and_schedules_from_a_fresh_install(
    installed: str, tmp_path: Path
) -> None:
    folder = write_project(tmp_path)
    slots = asyncio.Semaphore(AT_ONCE)
    async with dev_worker(folder, program=installed) as address:
        env = user_env(TEMPORAL_ADDRESS=address)

        async def cli(*args: str, stdin: str | None = None, env: dict[str, str] = env) -> Done:
            async with slots:
                return await agents(*args, cwd=folder, env=env, program=installed, stdin=stdin)

        async def watched() -> None:
            """Watch with the approvals answered at the prompt: approve a, deny b with a reason."""
            watched = await cli(
                'run', 'support', 'Clean up my files', '--workflow-id', 'w-0', '--watch', stdin='y\nn\nKeep b\n'
            )
            assert watched.code == 0, watched.err
            in_order(
                watched.out,
                'w-0\n',
                'user: Clean up my files\n',
                'model request 1 ',
                '  tool call delete_file({"path": "a.txt"})  [delete-a]\n',
                '  tool call delete_file({"path": "b.txt"})  [delete-b]\n',
                'approve delete_file({"path": "a.txt"}) [delete-a]? (y/n) y\n',
                '  approved delete-a\n',
                'approve delete_file({"path": "b.txt"}) [delete-b]? (y/n) n\n',
                'reason, told to the model (Enter: none): Keep b\n',
                '  denied delete-b\n',
                '  delete_file returned: deleted a.txt  [delete-a]\n',
                '  delete_file denied: Keep b  [delete-b]\n',
                'model request 2 ',
                '  text: deleted a.txt; Keep b\n',
                'completed: 2 model requests, 1 tool call, ',
                '"deleted a.txt; Keep b"\n',
            )
            assert watched.out.count('tool call delete_file({"path": "a.txt"})') == 1  # polled often, printed once

        async def answered_from_other_commands() -> None:
            """The inbox, then answers from other commands."""
            started = await cli('run', 'support', 'Clean up my files', '--workflow-id', 'w-1')
            assert (started.code, started.out) == (0, 'w-1\n')
            # The run watched alongside may be listed too.
            inbox = await until(
                lambda: cli('inbox'), lambda done: any('delete-b' in row for row in rows_of(done, 'w-1'))
            )
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
            approved = await cli('approve', 'w-1', 'delete-a', '--address', address, env=user_env())
            assert approved.out == 'Nothing else is pending.\n', approved.err

            assert (await cli('result', 'w-1')).out == '"deleted a.txt; Keep b"\n'
            # With a decision record per call: who answered (no --as: the Temporal client's identity), when, and
            # a digest of the arguments.
            state, version, approval, denial = (await cli('status', 'w-1')).out.splitlines()
            assert state == 'completed (step 2, 2 requests, 1 tool call)'
            assert re.fullmatch(r'  agent version: [0-9a-f]{12}', version), version
            at = r'at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(sha256:[0-9a-f]{8}…\)'
            assert re.fullmatch(rf'  delete-a delete_file: approved by \S+ {at}', approval), approval
            assert re.fullmatch(rf'  delete-b delete_file: denied by \S+ {at}: Keep b', denial), denial
            assert (await cli('watch', 'w-1')).out.endswith('"deleted a.txt; Keep b"\n')

        async def schedules() -> None:
            created = await cli('schedule', 'create', 'nightly', 'support', 'Tidy up', '--every', '24h')
            assert (
                created.out
                == "Schedule 'nightly' starts a run of 'support' every 1 day, 0:00:00 on task queue 'agents'.\n"
            )
            listed = await until(lambda: cli('schedule', 'list'), lambda done: 'nightly' in done.out)
            assert listed.out.splitlines()[1].split()[:6] == ['nightly', 'support', 'every', '1', 'day,', '0:00:00']
            assert (await cli('schedule', 'delete', 'nightly')).out == "Deleted schedule 'nightly'.\n"
            await until(lambda: cli('schedule', 'list'), lambda done: done.out == 'No schedules start agent runs.\n')

        # Three stories that share nothing but the worker, side by side: each command spends most of its time
        # importing, so they take turns on the cores instead of waiting for each other.
        async with asyncio.TaskGroup() as stories:
            stories.create_task(watched())
            stories.create_task(answered_from_other_commands())
            stories.create_task(schedules())
        await until(lambda: cli('inbox'), lambda done: done.out == 'Nothing waits for a human.\n')
