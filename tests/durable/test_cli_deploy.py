"""`agents deploy` and `agents worker --deployment/--build-id` as a person runs them: the
routing they set and read, and the one-line errors for an unknown deployment or version and a server without Worker
Versioning."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from agent import Agent
from agent.models.test import TestModel
from doors.cli import run
from worker import build_worker, temporal_cli_path
from workflows._deployments import describe_deployment

from ._cli_helpers import command

durable = pytest.mark.asyncio(loop_scope='session')

WAIT = 30.0


@asynccontextmanager
async def versions(client: Client, task_queue: str, *build_ids: str) -> AsyncIterator[str]:
    """Workers of a fresh deployment, one per build id (each serving an agent of its own name: one process registers
    one agent per name and queue); yields the deployment's name once the server lists every version."""
    deployment = f'd-{uuid.uuid4().hex[:8]}'
    async with AsyncExitStack() as stack:
        for build_id in build_ids:
            agent = Agent(TestModel(), name=f'agent-{build_id}')
            worker = build_worker(client, {agent.name or '': agent}, task_queue=task_queue, deployment=deployment,
                                  build_id=build_id)  # fmt: skip
            await stack.enter_async_context(worker)
        async with asyncio.timeout(WAIT):
            while True:
                try:
                    known = {v.build_id for v in (await describe_deployment(client, deployment)).versions}
                except Exception:  # not yet polled for
                    known = set()
                if known == set(build_ids):
                    break
                await asyncio.sleep(0.1)
        yield deployment


@durable
async def test_set_current_and_ramps_route_new_runs_and_status_shows_them(client: Client, task_queue: str) -> None:
    address = client.service_client.config.target_host
    async with versions(client, task_queue, 'one', 'two') as deployment:
        before = await command('deploy', 'status', '--deployment', deployment, address=address, task_queue=task_queue)
        current = await command('deploy', 'set-current', 'one', '--deployment', deployment, address=address,
                                task_queue=task_queue)  # fmt: skip
        ramp = await command('deploy', 'ramp', 'two', '25', '--deployment', deployment, address=address,
                             task_queue=task_queue)  # fmt: skip
        after = await command('deploy', 'status', '--deployment', deployment, address=address, task_queue=task_queue)
        state = await describe_deployment(client, deployment)
        stop = await command('deploy', 'stop-ramp', '--deployment', deployment, address=address, task_queue=task_queue)
        stopped = await describe_deployment(client, deployment)
        again = await command('deploy', 'stop-ramp', '--deployment', deployment, address=address,
                              task_queue=task_queue)  # fmt: skip
    assert before.code == 0, before
    assert before.out.splitlines()[0] == f'Deployment {deployment!r}: current version none (unversioned workers)'
    assert {line.split()[0]: line.split()[1] for line in before.out.splitlines()[2:]} == {
        'one': 'inactive',
        'two': 'inactive',
    }
    assert current.code == 0, current
    assert current.out.startswith(f"Version 'one' of {deployment!r} is current")
    assert ramp.code == 0, ramp
    assert ramp.out == f"Version 'two' of {deployment!r} takes 25% of new runs.\n"
    assert state.current == 'one'
    # Both versions' workers started together: their order (the newest first) is either.
    assert sorted((v.build_id, v.role, v.ramp_percentage) for v in state.versions) == [
        ('one', 'current', None),
        ('two', 'ramping', 25.0),
    ]
    assert after.code == 0, after
    lines = after.out.splitlines()
    assert lines[0] == f'Deployment {deployment!r}: current version one'
    assert lines[1].split() == ['BUILD', 'ID', 'STATE', 'OPEN', 'RUNS']
    assert sorted(line.split() for line in lines[2:]) == [['one', 'current', '0'], ['two', 'ramping', '25%', '0']]
    assert stop.code == 0, stop
    assert stop.out == (
        f"Version 'two' of {deployment!r} no longer takes new runs; the runs it took finish there. New runs start on "
        "version 'one'.\n"
    )
    assert stopped.current == 'one'
    assert [v.build_id for v in stopped.versions if v.role == 'ramping'] == []
    assert again.code == 0, again
    assert again.out == f'No version of {deployment!r} is ramping: new runs start on the current one.\n'


@durable
async def test_an_unknown_deployment_or_version_is_told_in_one_line(client: Client, task_queue: str) -> None:
    address = client.service_client.config.target_host
    unknown = await command('deploy', 'status', '--deployment', 'no-such-deployment', address=address,
                            task_queue=task_queue)  # fmt: skip
    async with versions(client, task_queue, 'one') as deployment:
        wrong = await command('deploy', 'set-current', 'nine', '--deployment', deployment, address=address,
                              task_queue=task_queue)  # fmt: skip
        too_much = await command('deploy', 'ramp', 'one', '150', '--deployment', deployment, address=address,
                                 task_queue=task_queue)  # fmt: skip
    assert unknown.code == 1
    assert unknown.err.splitlines() == [
        "python -m doors.cli: No worker deployment 'no-such-deployment' in namespace 'default': a deployment exists "
        'once a worker started with `agents worker --deployment NAME` polls.'
    ]
    assert wrong.code == 1
    assert wrong.err.splitlines() == [
        f"python -m doors.cli: Deployment {deployment!r} has no version 'nine' (it has one): a version exists once a "
        'worker started with its --build-id polls.'
    ]
    assert too_much.code == 1
    assert too_much.err == 'python -m doors.cli: PERCENT must be from 0 to 100, not 150.\n'


@durable
async def test_a_server_without_worker_versioning_is_told_in_one_line() -> None:
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli_path(),
        dev_server_extra_args=['--dynamic-config-value', 'system.enableDeploymentVersions=false'],
    )
    try:
        address = env.client.service_client.config.target_host
        done = await command('deploy', 'status', address=address, task_queue='agents')
    finally:
        await env.shutdown()
    assert done.code == 1
    assert done.err.splitlines() == [
        f"python -m doors.cli: The Temporal server at {address} offers no Worker Versioning in namespace 'default': "
        'Worker Deployment Versions are disabled on this namespace.'
    ]


def test_a_build_id_without_a_deployment_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(['worker', '--agents', 'tests.durable.versioned_agents:payments_a', '--build-id', 'B']) == 2
    assert capsys.readouterr().err == (
        'agents: --build-id names a version of a worker deployment: give --deployment NAME too.\n'
    )


@durable
async def test_without_deployment_flag_several_deployments_are_named_to_choose_from(
    client: Client, task_queue: str
) -> None:
    address = client.service_client.config.target_host
    async with versions(client, task_queue, 'one') as first, versions(client, f'{task_queue}-b', 'one') as second:
        done = await command('deploy', 'status', address=address, task_queue=task_queue)
    assert done.code == 1
    (line,) = done.err.splitlines()
    assert line.startswith('python -m doors.cli: Several worker deployments (')
    assert line.endswith('): choose one with --deployment.')
    assert first in line
    assert second in line
