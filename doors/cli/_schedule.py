"""`agents schedule create|list|delete`: Temporal schedules that start agent runs."""

from __future__ import annotations

import argparse
import json
import re
from datetime import timedelta
from typing import Any

from ._connect import connect
from ._errors import CommandError
from ._output import table

__all__ = ('parse_every', 'schedule_create', 'schedule_delete', 'schedule_list')

_UNITS = {'s': 'seconds', 'm': 'minutes', 'h': 'hours', 'd': 'days'}
_EVERY = re.compile(r'(\d+(?:\.\d+)?)([smhd])')


def parse_every(text: str) -> timedelta:
    """A duration such as `90s`, `30m`, `24h`, `7d` or `1h30m`.

    Raises:
        CommandError: for anything else, or a zero duration.
    """
    parts = _EVERY.findall(text)
    if not parts or ''.join(f'{n}{u}' for n, u in parts) != text.strip():
        raise CommandError(f'--every {text!r} is not a duration: use e.g. 90s, 30m, 24h, 7d or 1h30m.')
    every = sum((timedelta(**{_UNITS[unit]: float(number)}) for number, unit in parts), timedelta())
    if not every:
        raise CommandError('--every must be longer than zero.')
    return every


async def schedule_create(args: argparse.Namespace) -> int:
    """Create a schedule that starts runs of an agent every `--every` or per `--cron`."""
    if (args.every is None) == (args.cron is None):
        raise CommandError('Give exactly one of --every (e.g. 24h) and --cron (e.g. "0 9 * * *").')
    every = parse_every(args.every) if args.every is not None else None
    try:
        fields: dict[str, Any] = json.loads(args.input) if args.input else {}
    except json.JSONDecodeError as exc:
        raise CommandError(f'--input is not JSON: {exc}') from exc
    agents = await connect(args)
    await agents.create_schedule(
        args.schedule_id, args.agent, args.prompt, every=every, cron=args.cron, paused=args.paused, **fields
    )
    when = f'every {every}' if every is not None else f'cron {args.cron}'
    print(f'Schedule {args.schedule_id!r} starts a run of {args.agent!r} {when} on task queue {agents.task_queue!r}.')
    return 0


async def schedule_list(args: argparse.Namespace) -> int:
    """List the schedules that start agent runs."""
    agents = await connect(args)
    schedules = await agents.schedules()
    if not schedules:
        print('No schedules start agent runs.', flush=True)
        return 0
    rows = [
        [
            s.schedule_id,
            s.agent or '-',
            s.spec,
            'paused' if s.paused else (s.next_run.isoformat(timespec='seconds') if s.next_run else '-'),
        ]
        for s in schedules
    ]
    print(table(['SCHEDULE ID', 'AGENT', 'WHEN', 'NEXT RUN'], rows), flush=True)
    return 0


async def schedule_delete(args: argparse.Namespace) -> int:
    """Delete a schedule (runs it started go on)."""
    agents = await connect(args)
    await agents.delete_schedule(args.schedule_id)
    print(f'Deleted schedule {args.schedule_id!r}.', flush=True)
    return 0
