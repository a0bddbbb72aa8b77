"""The custom search attributes agent runs record, named in one place, and how a namespace gets them.

Temporal only indexes a search attribute a namespace has registered, and a workflow that upserts an unregistered
one fails its task. The dev server (`worker.py --dev`) registers these itself; on a cluster, run this once per
namespace before the workers start (the compose file in this folder does it in a one-shot service):

```bash
TEMPORAL_ADDRESS=temporal.internal:7233 python -m deploy.search_attributes --namespace agents
```

Registering is idempotent: attributes the namespace already has with the same type are left alone, and one it has
with another type is reported, since a type cannot change once registered.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from typing import Any

from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest, ListSearchAttributesRequest
from temporalio.client import Client
from temporalio.common import SearchAttributeIndexedValueType, SearchAttributeKey
from temporalio.service import RPCError

from deploy._environment import connect_from_environment

# The workflow records them, so the runtime names them; this module registers them.
from workflows._search_attributes import (
    AGENT_NAME,
    AGENT_OWNER,
    AGENT_STATE,
    AGENT_VERSION,
    PENDING_APPROVALS,
    SEARCH_ATTRIBUTES,
)

__all__ = (
    'AGENT_NAME',
    'AGENT_OWNER',
    'AGENT_STATE',
    'AGENT_VERSION',
    'PENDING_APPROVALS',
    'SEARCH_ATTRIBUTES',
    'SearchAttributeConflict',
    'main',
    'register_search_attributes',
)


class SearchAttributeConflict(RuntimeError):
    """A namespace already has one of the attributes under another type (a type cannot change once registered)."""


async def register_search_attributes(
    client: Client, namespace: str | None = None, attributes: Sequence[SearchAttributeKey[Any]] = SEARCH_ATTRIBUTES
) -> list[str]:
    """Register `attributes` on `namespace` (the client's by default); the names that were missing.

    Raises:
        SearchAttributeConflict: if the namespace has one of them under another type.
    """
    namespace = namespace or client.namespace
    listed = await client.operator_service.list_search_attributes(ListSearchAttributesRequest(namespace=namespace))
    existing = {**listed.system_attributes, **listed.custom_attributes}
    missing: dict[str, Any] = {}
    for key in attributes:
        wanted = int(key.indexed_value_type)
        if key.name not in existing:
            missing[key.name] = wanted
        elif existing[key.name] != wanted:
            have = SearchAttributeIndexedValueType(existing[key.name]).name.title()
            raise SearchAttributeConflict(
                f'Namespace {namespace!r} has search attribute {key.name} as {have}, but runs record it as '
                f'{key.indexed_value_type.name.title()}: remove it (temporal operator search-attribute remove) '
                'and register it again, or use another namespace'
            )
    if missing:
        await client.operator_service.add_search_attributes(
            AddSearchAttributesRequest(namespace=namespace, search_attributes=missing)
        )
    return list(missing)


async def _register(args: argparse.Namespace) -> str:
    client = await connect_from_environment(args.address, args.namespace)
    added = await register_search_attributes(client)
    names = ', '.join(key.name for key in SEARCH_ATTRIBUTES)
    if not added:
        return f'Namespace {client.namespace!r} already has the search attributes ({names})'
    return f'Registered {", ".join(added)} on namespace {client.namespace!r} (runs record {names})'


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m deploy.search_attributes`: register the attributes; the exit status (1 on an error)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--address', help='Temporal frontend host:port (default $TEMPORAL_ADDRESS or localhost:7233)')
    parser.add_argument('--namespace', help='namespace to register them on (default $TEMPORAL_NAMESPACE or default)')
    args = parser.parse_args(argv)
    try:
        print(asyncio.run(_register(args)), flush=True)
    except (SearchAttributeConflict, RPCError, RuntimeError) as exc:
        # Client.connect reports an unreachable server as a RuntimeError with the address in it.
        print(f'Could not register the search attributes: {exc}', file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == '__main__':
    code = main()
    # Leave without interpreter finalization: the SDK's native threads can abort it (see worker.exit_process).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
