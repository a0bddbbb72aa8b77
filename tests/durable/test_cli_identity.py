"""Who answers, from the `agents` command: `--as NAME` and `$AGENTS_IDENTITY` name the caller of every answer, the
run's approval rules check it, `agents status` shows the decision records and the approvals still open, and
`agents inbox --as NAME` lists what that identity may answer now."""

from __future__ import annotations

import asyncio
import re

import pytest
from temporalio.client import Client

from workflows import AgentWorkflow
from workflows._decisions import args_digest
from workflows.client import AgentClient

from ._cli_helpers import Done, command
from .test_approval_rules import TWO_OF_THREE, accepted_updates, ran, status_when, waiting_run

pytestmark = pytest.mark.asyncio(loop_scope='session')

WAIT = 30.0
"""Seconds the inbox may take to list a run (visibility lags a moment behind it)."""

AT = r'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC'
"""A time as `agents status` prints it."""


def one_line(done: Done) -> str:
    """The single line a refused command prints to stderr (it prints nothing else)."""
    assert done.out == '', done
    lines = done.err.splitlines()
    assert len(lines) == 1, done.err
    return lines[0]


async def listed(agents: AgentClient, workflow_id: str, caller: str) -> None:
    """Return once the inbox lists `workflow_id` for `caller`, as the command reads it."""
    async with asyncio.timeout(WAIT):
        while not any(run.workflow_id == workflow_id for run in await agents.inbox(caller=caller)):  # noqa: ASYNC110
            await asyncio.sleep(0.1)


async def test_approvals_as_two_identities_complete_a_two_of_three_call_and_status_names_both(
    client: Client, task_queue: str
) -> None:
    ran.clear()
    address = client.service_client.config.target_host
    async with waiting_run(client, task_queue, {'transfer': TWO_OF_THREE}) as (_, handle):
        alice = await command('approve', handle.id, 't-1', '--as', 'alice', address=address, task_queue=task_queue)
        assert alice.code == 0, alice
        assert alice.out.splitlines()[0] == (
            f'Approval counted: t-1 needs more approvers (`agents status {handle.id}` shows who approved).'
        )
        assert ran == []

        status = await command('status', handle.id, address=address, task_queue=task_queue)
        assert status.code == 0, status
        assert re.fullmatch(r'  agent version: [0-9a-f]{12}', status.out.splitlines()[1]), status.out
        assert status.out.splitlines()[2:] == ['  t-1 transfer: 1 of 2 approvals (alice)']

        bob = await command(
            'approve', handle.id, 't-1', address=address, task_queue=task_queue, env={'AGENTS_IDENTITY': 'bob'}
        )
        assert (bob.code, bob.out) == (0, 'Nothing else is pending.\n'), bob
        await handle.result()
        status = await command('status', handle.id, address=address, task_queue=task_queue)

    assert ran == [('transfer', 900)]
    assert status.code == 0, status
    state, version, *records = status.out.splitlines()
    assert state.startswith('completed ')
    assert re.fullmatch(r'  agent version: [0-9a-f]{12}', version), version
    digest = args_digest({'amount': 900}).removeprefix('sha256:')[:8]
    (record,) = records
    assert re.fullmatch(rf'  t-1 transfer: approved by alice, bob at {AT} \(sha256:{digest}…\)', record), record


async def test_watch_yes_approves_as_the_commands_identity(client: Client, task_queue: str) -> None:
    ran.clear()
    address = client.service_client.config.target_host
    async with waiting_run(client, task_queue, {'transfer': TWO_OF_THREE}) as (agents, handle):
        await agents.approve(handle.id, approvals={'t-1': True}, caller='alice')
        watched = await command(
            'watch', handle.id, '--yes', address=address, task_queue=task_queue, env={'AGENTS_IDENTITY': 'carol'}
        )
        result = await handle.result()
    assert watched.code == 0, watched
    assert '  approved t-1 (--yes)' in watched.out.splitlines(), watched.out
    assert ran == [('transfer', 900)]
    assert [(r.tool_call_id, r.decision, r.by) for r in result.decisions] == [('t-1', 'approve', ['alice', 'carol'])]


async def test_a_caller_the_rule_does_not_allow_or_an_approver_approving_twice_is_refused_in_one_line(
    client: Client, task_queue: str
) -> None:
    ran.clear()
    address = client.service_client.config.target_host
    async with waiting_run(client, task_queue, {'transfer': TWO_OF_THREE}) as (_, handle):
        mallory = await command('--as', 'mallory', 'approve', handle.id, 't-1', address=address, task_queue=task_queue)
        assert mallory.code == 1
        assert one_line(mallory) == (
            f"python -m doors.cli: The run {handle.id!r} refused the answer: 'mallory' may not approve calls of "
            "'transfer'."
        )
        status = await handle.query(AgentWorkflow.status)
        assert [(a.approved_by, a.required) for a in status.open_approvals] == [([], 2)]
        assert (status.decisions, status.rejected) == ([], [])
        assert await accepted_updates(handle) == 0

        # The same approver twice: the second is refused, and the first still counts once.
        first = await command('approve', handle.id, 't-1', '--as', 'alice', address=address, task_queue=task_queue)
        assert first.code == 0, first
        again = await command('approve', handle.id, 't-1', '--as', 'alice', address=address, task_queue=task_queue)
        assert again.code == 1
        assert one_line(again).endswith(
            "refused the answer: 'alice' already approved tool call 't-1'; it needs 1 more approval(s) from "
            'someone else.'
        )
        status = await status_when(handle, lambda status: status.open_approvals[0].approved_by == ['alice'])
        assert status.decisions == []
        assert ran == []
        await handle.terminate('done')


async def test_the_inbox_as_an_identity_lists_only_the_runs_it_may_answer_and_without_one_lists_all(
    client: Client, task_queue: str
) -> None:
    address = client.service_client.config.target_host
    async with waiting_run(client, task_queue, {'transfer': TWO_OF_THREE}) as (agents, handle):
        await listed(agents, handle.id, 'alice')

        alice, dave, anyone = await asyncio.gather(
            command('inbox', '--as', 'alice', address=address, task_queue=task_queue),
            command('inbox', address=address, task_queue=task_queue, env={'AGENTS_IDENTITY': 'dave'}),
            command('inbox', address=address, task_queue=task_queue),
        )
        for done in (alice, dave, anyone):
            assert done.code == 0, done
        assert re.search(rf'^{handle.id}\s+payments\s+-\s+approve\s+t-1\s+transfer', alice.out, re.M), alice.out
        assert handle.id not in dave.out
        # Without --as or $AGENTS_IDENTITY the answers would name the Temporal client's identity, which no rule
        # names: the inbox does not filter by it, or it would list nothing.
        assert handle.id in anyone.out

        # `agents pending` as an identity: only what it may answer now.
        alice, dave = await asyncio.gather(
            command('pending', handle.id, '--as', 'alice', address=address, task_queue=task_queue),
            command('pending', handle.id, '--as', 'dave', address=address, task_queue=task_queue),
        )
        assert (alice.code, dave.code) == (0, 0), (alice, dave)
        assert 't-1' in alice.out
        assert dave.out == 'Nothing is pending for dave.\n'
        await handle.terminate('done')


@pytest.mark.parametrize(
    ('flags', 'env', 'message'),
    [
        (['--as', ''], {}, '--as is empty: name who answers, e.g. --as alice.'),
        (['--as', 'a' * 256], {}, '--as is 256 characters long: an identity has at most 255.'),
        ([], {'AGENTS_IDENTITY': ''}, '$AGENTS_IDENTITY is empty: name who answers, e.g. --as alice.'),
    ],
)
async def test_an_identity_that_is_empty_or_too_long_is_a_usage_error_before_anything_connects(
    flags: list[str], env: dict[str, str], message: str
) -> None:
    # No server listens at this address: the identity is refused before the command tries to connect.
    done = await command('approve', 'w-1', 't-1', *flags, address='127.0.0.1:1', task_queue='q', env=env)
    assert done.code == 2
    assert one_line(done) == f'python -m doors.cli: {message}'
