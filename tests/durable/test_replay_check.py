"""`check_histories` and `agents replay-check`: runs recorded by version A of an agent, replayed against changes.

Each row of the safe-change table in docs/deploys.md is one case of `CHANGES`: version A records a completed run and
a run left waiting for approval, its worker stops, and checking the server with the changed agent must give the
verdicts (and the reason) the table says.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta

import pytest
import pytest_asyncio
from temporalio.client import Client, WorkflowHandle
from temporalio.service import RPCError

from agent import DeferredToolResults
from worker import build_worker, check_histories
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow, ApprovalRule, DurableAgent
from workflows._search_attributes import AGENT_NAME
from workflows.client import AgentClient

from ._cli_helpers import command
from ._replay_check_agents import CHANGES, mailer
from .test_run_search_attributes import _namespace_without_attributes as namespace_without_attributes

pytestmark = pytest.mark.asyncio(loop_scope='session')

WAIT = 10.0
"""The bound on every wait for a condition."""


_left_open: list[WorkflowHandle[AgentWorkflow, AgentRunOutput]] = []
"""The runs a test leaves waiting for the check (no worker answers them once it ends)."""


@pytest_asyncio.fixture(autouse=True, loop_scope='session')
async def _terminate_left_open() -> AsyncIterator[None]:
    """End the runs a test left waiting: another test's inbox would ask them and wait out the query's timeout."""
    yield
    while _left_open:
        with contextlib.suppress(RPCError):  # ended already
            await _left_open.pop().terminate('replay-check test over')


async def until(predicate: Callable[[], Awaitable[bool]], within: float = WAIT) -> None:
    """Wait (bounded) until `predicate` answers true: the server is asked again, as it has nothing to wait on."""
    async with asyncio.timeout(within):
        while True:
            if await predicate():
                return
            await asyncio.sleep(0.05)


async def _waiting(handle: WorkflowHandle[AgentWorkflow, AgentRunOutput]) -> bool:
    return await handle.query(AgentWorkflow.pending_deferred_tools) is not None


async def record_version_a(
    client: Client, task_queue: str, name: str, *, search_attributes: bool = True
) -> tuple[str, str]:
    """A completed run and a run waiting for `send_email`'s approval, recorded by version A: their workflow ids."""
    async with build_worker(client, {name: mailer(name)}, task_queue=task_queue, search_attributes=search_attributes):
        handles = [
            await client.start_workflow(
                AgentWorkflow.run, AgentRunInput(agent=name, prompt='mail ada'), id=f'{kind}-{uuid.uuid4()}',
                task_queue=task_queue,
            )
            for kind in ('done', 'wait')
        ]  # fmt: skip
        for handle in handles:
            await until(lambda handle=handle: _waiting(handle))
        done, waiting = handles
        _left_open.append(waiting)
        await done.signal(AgentWorkflow.submit_deferred_tool_results, DeferredToolResults(approvals={'mail-1': True}))
        assert (await done.result()).output == 'sent'

    async def listed() -> bool:  # visibility lags the runs a little
        query = f"WorkflowId = '{done.id}' OR WorkflowId = '{waiting.id}'"
        if search_attributes:
            query = f"{AGENT_NAME.name} = '{name}'"
        return (await client.count_workflows(query)).count == 2

    await until(listed)
    return done.id, waiting.id


@pytest.mark.parametrize('change', list(CHANGES))
async def test_a_change_gives_version_a_runs_the_verdict_of_its_table_row(
    client: Client, task_queue: str, change: str
) -> None:
    name = f'mailer-{uuid.uuid4().hex[:8]}'
    done, waiting = await record_version_a(client, task_queue, name)
    row = CHANGES[change]
    verdicts = await check_histories(client, {name: mailer(name, **row.changes)}, since=timedelta(hours=1))
    by_id = {v.workflow_id: v for v in verdicts}
    assert set(by_id) == {done, waiting}
    assert (by_id[done].verdict, by_id[waiting].verdict) == (row.completed, row.waiting)
    assert (by_id[done].open, by_id[waiting].open) == (False, True)
    for verdict in by_id.values():
        assert (row.reason in verdict.reason) if verdict.verdict == 'would fail' else verdict.reason == ''


async def test_runs_without_search_attributes_are_found_by_input_and_a_freed_waiting_call_would_change(
    client: Client, task_queue: str
) -> None:
    # Runs that record no search attributes upsert nothing as they start waiting, so the waiting run replays under
    # the change; that it would now run the call without approval is read from what the replayed run waits for.
    name = f'mailer-{uuid.uuid4().hex[:8]}'
    done, waiting = await record_version_a(client, task_queue, name, search_attributes=False)
    freed = mailer(name, **CHANGES['the waiting tool no longer requiring approval'].changes)
    verdicts = await check_histories(client, {name: freed}, since=timedelta(hours=1), by_input=True)
    by_id = {v.workflow_id: v for v in verdicts}
    assert by_id[waiting].verdict == 'would change'
    assert by_id[waiting].reason == "tool 'send_email' no longer requires approval, but call mail-1 waits for one"
    assert by_id[done].verdict == 'replays'  # nothing recorded the wait: the call's activity matches either way
    # By the search attribute, runs that never recorded it are not found.
    assert await check_histories(client, {name: freed}, since=timedelta(hours=1)) == []


async def test_the_command_exits_1_naming_the_breaking_change_per_run_and_0_for_a_safe_one(
    client: Client, task_queue: str
) -> None:
    name = f'mailer-{uuid.uuid4().hex[:8]}'
    done, waiting = await record_version_a(client, task_queue, name)
    address = client.service_client.config.target_host
    check = ('replay-check', '--agents', 'tests.durable._replay_check_agents:agent', '--since', '1h')
    breaking, safe = await asyncio.gather(
        *(
            command(*check, address=address, task_queue=task_queue, env={'MAILER_NAME': name, 'CHANGED_AGENT': change})
            for change in ('a called tool removed', 'a new tool')
        )
    )
    assert breaking.code == 1, breaking.err
    lines = breaking.out.splitlines()
    runs = sorted(line for line in lines if line.startswith(('done-', 'wait-')))
    assert runs == [
        f'{done}  {name}  closed  would fail: the new code schedules the model request of step 2 where the history '
        f"has the call of tool 'lookup' (look-1) in step 1: tool 'lookup' no longer exists, but the recorded "
        'response calls it',
        f'{waiting}  {name}  open  would fail: the new code schedules the model request of step 2 where the history '
        f"has the call of tool 'lookup' (look-1) in step 1: tool 'lookup' no longer exists, but the recorded "
        'response calls it',
    ]
    assert lines[-1] == f'2 runs of {name} since 1h: 0 replay, 2 would fail, 0 would change'
    assert safe.code == 0, safe.err
    assert sorted(safe.out.splitlines()[:2]) == [
        f'{done}  {name}  closed  replays',
        f'{waiting}  {name}  open  replays',
    ]
    assert safe.out.splitlines()[-1] == f'2 runs of {name} since 1h: 2 replay, 0 would fail, 0 would change'


def _ruled(name: str, required: int) -> DurableAgent:
    rule = ApprovalRule(approvers={'alice', 'bob'}, required_approvals=required)
    return DurableAgent(mailer(name), approval_rules={'send_email': rule})


async def test_an_approval_rule_changed_under_a_recorded_answer_would_change_the_run_and_before_any_answer_replays(
    client: Client, task_queue: str
) -> None:
    name = f'mailer-{uuid.uuid4().hex[:8]}'
    agents = AgentClient(client, task_queue=task_queue)
    async with build_worker(client, {name: _ruled(name, 2)}, task_queue=task_queue, search_attributes=True):
        answered, unanswered = [
            await client.start_workflow(
                AgentWorkflow.run, AgentRunInput(agent=name, prompt='mail ada'), id=f'{kind}-{uuid.uuid4()}',
                task_queue=task_queue,
            )
            for kind in ('answered', 'unanswered')
        ]  # fmt: skip
        _left_open.extend((answered, unanswered))
        for handle in (answered, unanswered):
            await until(lambda handle=handle: _waiting(handle))
        still = await agents.approve(answered.id, approvals={'mail-1': True}, caller='alice')
        assert still is not None  # bob's approval is still needed

    async def listed() -> bool:
        return (await client.count_workflows(f"{AGENT_NAME.name} = '{name}'")).count == 2

    await until(listed)
    verdicts = await check_histories(client, {name: _ruled(name, 1)}, since=timedelta(hours=1))
    by_id = {v.workflow_id: v for v in verdicts}
    # Alice's recorded approval is now enough: the replay passes (nothing was recorded after it), but the new rule
    # runs the call where the history goes on waiting for bob.
    assert by_id[answered.id].verdict == 'would change'
    assert by_id[answered.id].reason == (
        "the history waits, but the new code goes on at once: Calling send_email(to='ada@example.com')"
    )
    # No answer was recorded: the run replays, and the new rule decides its call from now on.
    assert by_id[unanswered.id].verdict == 'replays'


async def test_on_a_namespace_without_the_attributes_the_command_says_so_and_finds_the_runs_by_input(
    client: Client, task_queue: str
) -> None:
    bare = await namespace_without_attributes(client)
    name = f'mailer-{uuid.uuid4().hex[:8]}'
    done, waiting = await record_version_a(bare, task_queue, name, search_attributes=False)
    checked = await command(
        'replay-check', '--agents', 'tests.durable._replay_check_agents:agent', '--since', '1h',
        '--namespace', bare.namespace, address=client.service_client.config.target_host, task_queue=task_queue,
        env={'MAILER_NAME': name, 'CHANGED_AGENT': 'a called tool removed'},
    )  # fmt: skip
    assert checked.code == 1, checked.err
    assert checked.err.splitlines() == [
        f"Namespace '{bare.namespace}' has no AgentName search attribute: looking for the runs by their input among "
        'every AgentWorkflow run of the window (register it: python -m deploy.search_attributes).'
    ]
    runs = sorted(line.partition(': ')[0] for line in checked.out.splitlines() if line.startswith(('done-', 'wait-')))
    assert runs == [f'{done}  {name}  closed  would fail', f'{waiting}  {name}  open  would fail']
