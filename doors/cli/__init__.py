"""`agents`: one command to serve durable agents and to start, steer and answer their runs.

```bash
agents worker --agents myapp.agents:support --dev     # a worker on an embedded dev server (localhost:7233)
agents run support "Clean up my files" --watch
agents inbox                                          # every run waiting for a human
agents inbox --as alice                               # what alice may answer now (or AGENTS_IDENTITY=alice)
agents approve <workflow-id> <tool-call-id> --as alice   # the answer names alice, as the approval rules require
agents deny <workflow-id> <tool-call-id> --reason "Not now."
agents answer <token> --json '{"approvals": {"<tool-call-id>": true}}'   # a RequestInput wait, by its token
agents status <workflow-id>                           # state, decision records, open approvals
agents result <workflow-id>
agents schedule create nightly reporter "Summarize the day" --every 24h
```

Each subcommand parses, calls the public API (`AgentClient`, `build_worker`) and prints. Errors a person can cause
are told in one or two lines (`_errors`), with the exit status 1 (2 for a usage error: argparse's, or a `UsageError`
such as a blank `--as`) and a traceback only with `--debug`. `main` leaves the process without interpreter
finalization once the command is done: the Temporal runtime's native threads can abort a finalizing interpreter
(`Fatal Python error: PyGILState_Release`), turning a clean exit into a crash; every client and worker is closed
before that.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from workflows._process import exit_process

from ._errors import CommandError, UsageError, explain
from ._parser import build_parser, parse

__all__ = ('CommandError', 'build_parser', 'main', 'run')


def run(argv: Sequence[str] | None = None, *, prog: str = 'agents') -> int:
    """Run one command line and return its exit status (0, 1 for an error, 2 for a usage error, 130 on Ctrl-C).

    The process is left running: this is the entry point for tests and for embedding.
    """
    parser = build_parser(prog)
    try:
        args = parse(parser, sys.argv[1:] if argv is None else list(argv))
    except SystemExit as exc:  # --help, or a usage error (argparse has printed it)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        result = args.handler(args)
        return asyncio.run(result) if inspect.iscoroutine(result) else int(result or 0)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        message = explain(exc, args)
        if message is None or args.debug:
            traceback.print_exc()
        if message is None:
            return 1
        print(f'{prog}: {message}', file=sys.stderr, flush=True)
        return 2 if isinstance(exc, UsageError) else 1


def main(argv: Sequence[str] | None = None, *, prog: str = 'agents') -> NoReturn:
    """The `agents` command: run the command line, then leave the process with its exit status."""
    exit_process(run(argv, prog=prog))
