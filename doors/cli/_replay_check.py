"""`agents replay-check`: replay the recent runs of the agents in this folder's code, before deploying it.

```bash
agents replay-check --agents myapp.agents:support --since 24h --limit 50
```

One line per run (workflow id, agent, open or closed, verdict and why), then a summary. The exit status is 1 when any
run would fail its replay (with `--strict`, also when one would go on differently), so it can gate a deploy.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ._connect import resolve, settings_from
from ._errors import CommandError
from ._output import plural
from ._schedule import parse_every
from ._serve import load

if TYPE_CHECKING:
    from temporalio.client import Client

__all__ = ('replay_check_command',)


async def replay_check_command(args: argparse.Namespace) -> int:
    """Check the recent runs of `--agents` against their code here; 1 if any would fail (or change, `--strict`)."""
    from worker import check_histories, connect

    agents = load(args.agents)
    try:
        since = parse_every(args.since)
    except CommandError:
        raise CommandError(f'--since {args.since!r} is not a duration: use e.g. 30m, 24h or 7d.') from None
    if args.limit < 1:
        raise CommandError('--limit must be at least 1.')
    resolve(args)  # so that a connection error names the address really used
    client = await connect(**settings_from(args))
    by_input = await _without_agent_name(client)
    if by_input:
        print(
            f'Namespace {client.namespace!r} has no AgentName search attribute: looking for the runs by their input '
            'among every AgentWorkflow run of the window (register it: python -m deploy.search_attributes).',
            file=sys.stderr,
        )
    verdicts = await check_histories(
        client, agents, limit=args.limit, since=since, sandboxed=not args.unsandboxed, by_input=by_input
    )
    for verdict in verdicts:
        print(verdict.line())
    failing = sum(v.verdict == 'would fail' for v in verdicts)
    changing = sum(v.verdict == 'would change' for v in verdicts)
    print(
        f'{plural(len(verdicts), "run")} of {", ".join(agents)} since {args.since}: '
        f'{len(verdicts) - failing - changing} replay, {failing} would fail, {changing} would change'
    )
    return 1 if failing or (args.strict and changing) else 0


async def _without_agent_name(client: Client) -> bool:
    """Whether the namespace lacks the `AgentName` search attribute (`False` where its attributes cannot be listed)."""
    from temporalio.service import RPCError

    from workflows._search_attributes import AGENT_NAME, missing_search_attributes

    try:
        return bool(await missing_search_attributes(client, [AGENT_NAME]))
    except RPCError:  # no operator access (some cloud keys): the runs are looked for by the attribute
        return False
