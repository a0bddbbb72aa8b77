"""How the command line prints runs, pending tool calls, decision records, tables and values."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import pydantic

from agent._deferred import DeferredToolRequests
from workflows._decisions import DecisionRecord, PendingApproval

__all__ = (
    'ARGS_WIDTH',
    'DIGEST_CHARS',
    'REASON_WIDTH',
    'decision_line',
    'dump',
    'open_approval_line',
    'pending_lines',
    'plural',
    'shorten',
    'table',
    'utc',
)

ARGS_WIDTH = 60
"""How many characters of a tool call's arguments a table shows."""
REASON_WIDTH = 100
"""How many characters of a denial's reason (or a failed call's message) a decision record's line shows."""
DIGEST_CHARS = 8
"""How many hex digits of an arguments digest a line shows: enough to tell two apart at a glance."""


def dump(value: Any) -> str:
    """`value` as indented JSON (what `result` prints)."""
    return pydantic.TypeAdapter(Any).dump_json(value, indent=2).decode()


def plural(count: int, noun: str) -> str:
    """`count` and `noun`, with an `s` unless there is exactly one: `1 tool call`, `2 tool calls`."""
    return f'{count} {noun}' if count == 1 else f'{count} {noun}s'


def shorten(text: str, width: int = ARGS_WIDTH) -> str:
    """`text` on one line, cut to `width` characters with an ellipsis."""
    text = ' '.join(text.split())
    return text if len(text) <= width else text[: width - 1] + '…'


def pending_lines(pending: DeferredToolRequests) -> list[str]:
    """One line per pending tool call: what it asks for, its id, the tool and its arguments."""
    lines = [f'  approve? {c.tool_call_id}: {c.tool_name}({c.args_as_json_str()})' for c in pending.approvals]
    lines += [f'  result?  {c.tool_call_id}: {c.tool_name}({c.args_as_json_str()})' for c in pending.calls]
    return lines


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns under `headers`, two spaces apart (the last column is not padded)."""
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]
    lines = [
        '  '.join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [headers, *rows]
    ]
    return '\n'.join(lines)


def utc(moment: datetime) -> str:
    """A time as the command prints it: `2026-11-27 10:31:05 UTC`."""
    return f'{moment:%Y-%m-%d %H:%M:%S} UTC'


_VERBS = {'approve': 'approved', 'deny': 'denied', 'override': 'approved with other arguments', 'result': 'result'}


def decision_line(record: DecisionRecord) -> str:
    """One line for a decision record: the call, what was decided, by whom and when, why, and the arguments' digest.

    `  t-1 transfer: approved by alice, bob at 2026-11-27 10:31:05 UTC (sha256:3f1c09ab…)`
    """
    verb = 'failed' if record.decision == 'result' and record.reason is not None else _VERBS[record.decision]
    line = f'  {record.tool_call_id} {record.tool_name}: {verb}'
    if record.by:
        line += f' by {", ".join(record.by)}'
    earlier = [vote.by for vote in record.votes if vote.decision != 'deny' and vote.by is not None]
    if record.decision == 'deny' and earlier:
        line += f' (after approval by {", ".join(earlier)})'
    line += f' at {utc(record.at)}'
    if record.args_digest:
        algorithm, _, digest = record.args_digest.partition(':')
        line += f' ({algorithm}:{digest[:DIGEST_CHARS]}…)'
    if record.reason is not None:
        line += f': {shorten(record.reason, REASON_WIDTH)}'
    return line


def open_approval_line(approval: PendingApproval) -> str:
    """One line for an approval under a rule that is still open: how many approvals it has of those it needs, whose,
    and when it expires.

    `  t-1 transfer: 1 of 2 approvals (alice), expires 2026-11-28 10:30:00 UTC`
    """
    counts = f'{len(approval.approved_by)} of {plural(approval.required, "approval")}'
    line = f'  {approval.tool_call_id} {approval.tool_name}: {counts}'
    if approval.approved_by:
        line += f' ({", ".join(approval.approved_by)})'
    if approval.expires is not None:
        line += f', expires {utc(approval.expires)}'
    return line
