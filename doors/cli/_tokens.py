"""`agents answer TOKEN`: resolve a wait for an external event (a `RequestInput` of a durable run) by its token.

The answer goes as `AgentClient.resolve_token` (or `fail_token` with `--fail`) sends it: the `resolve_external_event`
update to the run the token names, which refuses what it cannot take (one line, exit status 1). As `agents approve`
does, it waits `--timeout` seconds for a worker to accept it; with none, it sends the `submit_external_event`
signal instead, which the server records in the run's history at once, and says so with exit status 1 (see
`_answer` for why an update no worker accepted is not enough). The answer names `--caller`, else the command's
identity (`--as`, `$AGENTS_IDENTITY`, else the Temporal client's).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from workflows._resume_tokens import decode_token

from ._connect import connect
from ._errors import CommandError
from ._identity import checked_identity

__all__ = ('answer_command',)


async def answer_command(args: argparse.Namespace) -> int:
    """`agents answer TOKEN --json JSON | --fail REASON`: resolve or fail the wait the token names."""
    if not args.timeout > 0:
        raise CommandError('--timeout must be a positive number of seconds.')
    address = decode_token(args.token)  # a malformed token is told before anything connects
    caller = checked_identity(args.caller, '--caller') if args.caller is not None else None
    args.workflow_id = address.workflow_id  # for the messages of errors that name the run
    payload: Any = None
    if args.json is not None:
        text = sys.stdin.read() if args.json == '-' else args.json
        try:
            payload = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CommandError(f'--json is not JSON: {exc}') from exc
    agents = await connect(args)  # `caller=None` answers as its identity
    try:
        if args.fail is not None:
            await agents.fail_token(args.token, args.fail, caller=caller, accept_within=args.timeout)
        else:
            await agents.resolve_token(args.token, payload, caller=caller, accept_within=args.timeout)
    except TimeoutError:
        await agents.submit_token(args.token, payload, failure=args.fail, caller=caller)
        raise CommandError(
            f'No worker of the run accepted the answer within {args.timeout:g} s.\nThe answer is recorded in the '
            "run's history and applies when a worker picks the run up; "
            f'`agents status {address.workflow_id}` then lists it under rejected if the run could not take it.'
        ) from None
    print('The wait is failed.' if args.fail is not None else 'The wait is resolved.', flush=True)
    return 0
