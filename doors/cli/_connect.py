"""The connection every command uses: Temporal's environment configuration, with the global flags over it, and who
the command's answers come from (`--as`, `$AGENTS_IDENTITY`: see `_identity`)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from workflows._connection import connect_config
from workflows.client import AgentClient

from ._errors import CommandError
from ._identity import identity_from

__all__ = ('DEFAULT_TASK_QUEUE', 'connect', 'resolve', 'settings_from')

DEFAULT_TASK_QUEUE = 'agents'
"""The task queue commands use without `--task-queue` (the worker's default)."""


async def connect(args: argparse.Namespace) -> AgentClient:
    """An `AgentClient` for the flags in `args` (see `workflows._connection.connect_config`), whose answers name
    `--as`, else `$AGENTS_IDENTITY`, else the Temporal client's identity.

    The identity given is kept on `args.identity` (`None` if neither names one: only such an identity filters the
    inbox), and the address and namespace on `args.target`, so an error message names the ones really used.

    Raises:
        UsageError: for an identity that is blank or longer than a run takes, before anything connects.
    """
    args.identity = identity_from(args.identity, os.environ)
    resolve(args)
    return await AgentClient.connect(
        **settings_from(args), task_queue=args.task_queue or DEFAULT_TASK_QUEUE, identity=args.identity
    )


def resolve(args: argparse.Namespace) -> None:
    """Check the connection settings `args` stand for, keeping their address and namespace on `args.target`.

    Raises:
        CommandError: for a certificate without its key, or an address written as a URL (`http://host:7233`),
            which the SDK only warns about before failing to connect as if no server were there.
    """
    try:
        config = connect_config(**settings_from(args))
    except ValueError as exc:  # a certificate without its key
        raise CommandError(f'{exc} (--tls-cert and --tls-key)') from exc
    address: str = config.get('target_host', '')
    args.target = (address, config.get('namespace', ''))
    if '://' in address:
        raise CommandError(
            f'The Temporal address {address!r} is a URL: give HOST:PORT, e.g. {address.partition("://")[2]!r}.'
        )


def settings_from(args: argparse.Namespace) -> dict[str, Any]:
    """The connection flags of `args` as `connect_config` arguments (`None` for those not given)."""
    return {
        'address': args.address,
        'namespace': args.namespace,
        'api_key': args.api_key,
        'tls_cert': args.tls_cert,
        'tls_key': args.tls_key,
        'profile': args.profile,
    }
