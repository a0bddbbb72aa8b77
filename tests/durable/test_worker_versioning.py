"""Worker Versioning against the dev server: runs stay on the version that started them while a changed agent is
rolled out, new runs take the new version, a conversation moves at its next hand-over, and the old version drains.

Version A's worker runs in the test's process; version B's is a worker process started with
`agents worker --deployment NAME --build-id B` (one process serves one agent per name and task queue), and
`agents deploy set-current` / `agents deploy status` steer and read the deployment as a person would.
"""

from __future__ import annotations

import asyncio
import re
import signal
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from temporalio.api.enums.v1 import VersioningBehavior as VersioningBehaviorProto
from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.common import VersioningBehavior, WorkerDeploymentVersion

from tests._processes import started
from worker import build_worker, code_build_id
from workflows import AgentRunOutput
from workflows._deployments import describe_deployment, set_current_version
from workflows.client import AgentClient, conversation_workflow_id

from ._cli_helpers import REPO, Done, command, user_env
from .versioned_agents import chat_a, payments_a

pytestmark = [pytest.mark.asyncio(loop_scope='session'), pytest.mark.slow(60)]

WAIT = 60.0
"""Seconds a step may take on a busy machine (a worker process starts, visibility catches up)."""
TEST_BOUND = 300.0
"""Seconds the whole test may take, so that a run that never ends fails it instead of hanging it."""
RUNS = 10


async def version_of(client: Client, workflow_id: str) -> str | None:
    """The build id of the version the workflow's latest run is pinned to (`None` until its first workflow task is
    done, and for a run that is not pinned)."""
    info = (await client.get_workflow_handle(workflow_id).describe()).raw_description.workflow_execution_info
    pinned = info.versioning_info.behavior == VersioningBehaviorProto.VERSIONING_BEHAVIOR_PINNED
    return info.versioning_info.deployment_version.build_id if pinned else None


async def until(check: Any, what: str) -> Any:
    """Wait (bounded) for the coroutine function `check` to return something true (`what`), and return it."""
    try:
        async with asyncio.timeout(WAIT):
            while True:
                if found := await check():
                    return found
                await asyncio.sleep(0.1)
    except TimeoutError:
        raise AssertionError(f'not within {WAIT:g} s: {what}') from None


async def has_version(client: Client, deployment: str, build_id: str) -> bool:
    try:
        state = await describe_deployment(client, deployment)
    except Exception:  # the deployment appears once the version's worker has polled
        return False
    return build_id in [v.build_id for v in state.versions]


@asynccontextmanager
async def worker_process(address: str, task_queue: str, *args: str) -> AsyncIterator[str]:
    """`agents worker ARGS` in the repository; yields its `Worker running ...` line, stops it with SIGINT."""
    async with started(
        sys.executable, '-m', 'doors.cli', '--address', address, '--task-queue', task_queue, 'worker', *args,
        cwd=REPO, env=user_env(), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    ) as process:  # fmt: skip
        assert process.stdout is not None
        lines: list[str] = []
        while not lines or not lines[-1].startswith('Worker running'):
            line = (await asyncio.wait_for(process.stdout.readline(), WAIT)).decode()
            assert line, ''.join(lines)  # it ended before serving
            lines.append(line)
        yield lines[-1]
        process.send_signal(signal.SIGINT)
        await asyncio.wait_for(process.communicate(), WAIT)


def status_rows(done: Done) -> dict[str, list[str]]:
    """`agents deploy status`'s table as {build id: [state..., open runs]}."""
    rows = [re.split(r'\s{2,}', line.strip()) for line in done.out.splitlines()[2:] if line.strip()]
    return {row[0]: row[1:] for row in rows}


async def test_runs_finish_on_the_version_that_started_them_while_new_runs_and_moved_conversations_take_the_new_one(
    client: Client, task_queue: str
) -> None:
    deployment = f'payments-{uuid.uuid4().hex[:8]}'
    address = client.service_client.config.target_host
    agents = AgentClient(client, task_queue=task_queue)
    conversation = f'c-{uuid.uuid4().hex[:8]}'
    chat_id = conversation_workflow_id('chat', conversation)
    served_a = {'payments': payments_a, 'chat': chat_a}
    async with (
        asyncio.timeout(TEST_BOUND),
        build_worker(client, served_a, task_queue=task_queue, deployment=deployment, build_id='A'),
    ):
        await until(lambda: has_version(client, deployment, 'A'), 'version A registered')
        await set_current_version(client, deployment, 'A')

        # Ten runs wait for approval on version A, and a conversation is answered there.
        handles: list[WorkflowHandle[Any, AgentRunOutput]] = [
            await agents.start('payments', 'pay the invoice') for _ in range(RUNS)
        ]
        for handle in handles:
            await until(lambda h=handle: agents.pending(h.id), f'{handle.id} waits for approval')
        first = await agents.send_message('chat', conversation_id=conversation, prompt='m1', max_turns_per_run=1)
        assert first.output == 'A heard m1'
        # It continued as new after the turn (one turn per run), onto A, the current version: pinned there once the
        # next run's first workflow task is done.
        await until(lambda: version_of_is(client, chat_id, 'A'), 'the next run of the conversation is on A')

        # Version B (archive removed, transfer approved by bob only) is deployed and made current.
        references = ['tests.durable.versioned_agents:payments_b', 'tests.durable.versioned_agents:chat_b']
        async with worker_process(
            address, task_queue, '--agents', *references, '--deployment', deployment, '--build-id', 'B'
        ) as running:
            assert running.endswith(f"as version 'B' of deployment {deployment!r}\n"), running
            await until(lambda: has_version(client, deployment, 'B'), 'version B registered')
            made = await command('deploy', 'set-current', 'B', '--deployment', deployment, address=address,
                                 task_queue=task_queue)  # fmt: skip
            assert made.code == 0, made
            assert (await describe_deployment(client, deployment)).current == 'B'

            # Approving the ten runs completes them on A, with A's behaviour: archive runs, alice may approve.
            for handle in handles:
                await agents.approve(handle.id, approvals={'t-1': True, 'a-1': True}, caller='alice')
            outputs = [(await handle.result()).output for handle in handles]
            assert outputs == ['transfer=sent 900 by A; archive=archived a.txt by A'] * RUNS
            assert {await version_of(client, handle.id) for handle in handles} == {'A'}

            # A new run takes B: no archive call, and only bob may approve the transfer.
            fresh = await agents.start('payments', 'pay the invoice')
            pending = await until(lambda: agents.pending(fresh.id), 'the new run waits for approval')
            assert [call.tool_name for call in pending.approvals] == ['transfer']
            with pytest.raises(WorkflowUpdateFailedError) as refused:
                await agents.approve(fresh.id, approvals={'t-1': True}, caller='alice')
            assert "'alice' may not approve calls of 'transfer'" in str(refused.value.cause)
            await agents.approve(fresh.id, approvals={'t-1': True}, caller='bob')
            assert (await fresh.result()).output == 'transfer=sent 900 by B'
            assert await version_of(client, fresh.id) == 'B'

            # The conversation's run took its next message on A; the hand-over after it moved it to B.
            assert await version_of(client, chat_id) == 'A'  # not moved yet: it has not continued as new since
            second = await agents.send_message('chat', conversation_id=conversation, prompt='m2', max_turns_per_run=1)
            assert second.output == 'A heard m2'
            assert await until(lambda: version_of_is(client, chat_id, 'B'), 'the conversation moved to B')
            third = await agents.send_message('chat', conversation_id=conversation, prompt='m3', max_turns_per_run=1)
            assert third.output == 'B heard m3'

            # A holds no runs now: drained. B holds the conversation.
            async def drained() -> Done | None:
                done = await command('deploy', 'status', '--deployment', deployment, address=address,
                                     task_queue=task_queue)  # fmt: skip
                assert done.code == 0, done
                rows = status_rows(done)
                return done if rows.get('A') == ['drained', '0'] and rows.get('B') == ['current', '1'] else None

            status = await until(drained, 'version A drained')
            assert status.out.splitlines()[0] == f'Deployment {deployment!r}: current version B'
            await agents.close_conversation('chat', conversation)
            await client.get_workflow_handle(chat_id).result()


async def version_of_is(client: Client, workflow_id: str, build_id: str) -> bool:
    return await version_of(client, workflow_id) == build_id


async def test_a_versioned_worker_without_a_build_id_is_the_version_of_its_code(
    client: Client, task_queue: str
) -> None:
    deployment = f'd-{uuid.uuid4().hex[:8]}'
    worker = build_worker(client, {'payments': payments_a}, task_queue=task_queue, deployment=deployment)
    async with worker:
        config = worker.config().get('deployment_config')
        await until(lambda: has_version(client, deployment, code_build_id([payments_a])), 'the version registered')
    assert config is not None
    assert config.version == WorkerDeploymentVersion(deployment, code_build_id([payments_a]))
    assert config.default_versioning_behavior == VersioningBehavior.PINNED
