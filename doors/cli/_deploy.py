"""`agents deploy`: the versions of a versioned worker deployment, and which takes new runs.

Workers join a deployment with `agents worker --deployment NAME [--build-id ID]`; these commands read and move its
routing through `workflows._deployments`. Without `--deployment`, a namespace's only deployment is meant.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from typing import TypeVar

from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from workflows._deployments import (
    DeploymentState,
    deployment_names,
    describe_deployment,
    set_current_version,
    set_ramping_version,
)

from ._connect import connect
from ._errors import CommandError
from ._output import table

__all__ = ('deploy_ramp', 'deploy_set_current', 'deploy_status', 'deploy_stop_ramp')

T = TypeVar('T')


async def deploy_status(args: argparse.Namespace) -> int:
    """List the deployment's versions: current, ramping, draining or drained, and the open runs each holds."""
    client, name = await _deployment(args)
    state = await _asked(args, lambda: describe_deployment(client, name))
    print(f'Deployment {name!r}: current version {state.current or "none (unversioned workers)"}', flush=True)
    rows = [
        [
            version.build_id,
            f'ramping {version.ramp_percentage:g}%' if version.ramp_percentage is not None else version.role,
            str(version.open_runs),
        ]
        for version in state.versions
    ]
    print(table(['BUILD ID', 'STATE', 'OPEN RUNS'], rows), flush=True)
    return 0


async def deploy_set_current(args: argparse.Namespace) -> int:
    """Make a version current: new runs, and conversations at their next hand-over, go to it."""
    client, name = await _deployment(args)
    await _known_version(args, client, name)
    await _asked(args, lambda: set_current_version(client, name, args.build_id, identity=args.identity or ''))
    print(
        f'Version {args.build_id!r} of {name!r} is current: new runs start on it; runs pinned to other versions '
        'finish there (`agents deploy status` counts them).',
        flush=True,
    )
    return 0


async def deploy_ramp(args: argparse.Namespace) -> int:
    """Send a share of new runs to a version (the rest go to the current one)."""
    if not 0 <= args.percent <= 100:
        raise CommandError(f'PERCENT must be from 0 to 100, not {args.percent:g}.')
    client, name = await _deployment(args)
    await _known_version(args, client, name)
    await _asked(
        args, lambda: set_ramping_version(client, name, args.build_id, args.percent, identity=args.identity or '')
    )
    print(f'Version {args.build_id!r} of {name!r} takes {args.percent:g}% of new runs.', flush=True)
    return 0


async def deploy_stop_ramp(args: argparse.Namespace) -> int:
    """End a ramp: every new run starts on the current version again (runs the ramping version took stay there)."""
    client, name = await _deployment(args)
    state = await _asked(args, lambda: describe_deployment(client, name))
    ramping = [version.build_id for version in state.versions if version.role == 'ramping']
    if not ramping:
        print(f'No version of {name!r} is ramping: new runs start on the current one.', flush=True)
        return 0
    await _asked(args, lambda: set_ramping_version(client, name, None, 0, identity=args.identity or ''))
    print(
        f'Version {ramping[0]!r} of {name!r} no longer takes new runs; the runs it took finish there. New runs start '
        f'on {f"version {state.current!r}" if state.current else "unversioned workers"}.',
        flush=True,
    )
    return 0


async def _deployment(args: argparse.Namespace) -> tuple[Client, str]:
    """The client, and the deployment `--deployment` names (else the namespace's only one)."""
    client = (await connect(args)).client
    if args.deployment:
        return client, args.deployment
    names = await _asked(args, lambda: deployment_names(client))
    if len(names) == 1:
        args.deployment = names[0]
        return client, names[0]
    if not names:
        raise CommandError(
            f'No worker deployments in namespace {client.namespace!r}: start workers with '
            '`agents worker --deployment NAME` first.'
        )
    raise CommandError(f'Several worker deployments ({", ".join(names)}): choose one with --deployment.')


async def _known_version(args: argparse.Namespace, client: Client, name: str) -> DeploymentState:
    """The deployment's state, if it has the version `args.build_id`.

    Raises:
        CommandError: naming the versions it has, if it has not.
    """
    state = await _asked(args, lambda: describe_deployment(client, name))
    known = [version.build_id for version in state.versions]
    if args.build_id not in known:
        raise CommandError(
            f'Deployment {name!r} has no version {args.build_id!r} (it has {", ".join(known) or "none"}): '
            'a version exists once a worker started with its --build-id polls.'
        )
    return state


async def _asked(args: argparse.Namespace, ask: Callable[[], Awaitable[T]]) -> T:
    """`ask()`, with the server's answers a person can cause told in one line.

    Told here rather than in `_errors.explain`: there, `NOT_FOUND` and `PERMISSION_DENIED` are about runs and
    schedules, while from these calls they mean an unknown deployment and a server without Worker Versioning.
    """
    address, namespace = getattr(args, 'target', ('', ''))
    try:
        return await ask()
    except RPCError as exc:
        if exc.status == RPCStatusCode.UNIMPLEMENTED or (
            exc.status == RPCStatusCode.PERMISSION_DENIED and 'disabled' in exc.message
        ):
            raise CommandError(
                f'The Temporal server at {address} offers no Worker Versioning in namespace {namespace!r}: '
                f'{exc.message}'
            ) from exc
        if exc.status == RPCStatusCode.NOT_FOUND:
            raise CommandError(
                f'No worker deployment {args.deployment!r} in namespace {namespace!r}: a deployment exists once a '
                'worker started with `agents worker --deployment NAME` polls.'
            ) from exc
        raise
