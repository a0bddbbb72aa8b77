"""How the command line prints runs, pending tool calls, tables and values."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pydantic

from agent._deferred import DeferredToolRequests

__all__ = ('ARGS_WIDTH', 'dump', 'pending_lines', 'plural', 'shorten', 'table')

ARGS_WIDTH = 60
"""How many characters of a tool call's arguments a table shows."""


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
