"""Refusing a tool result too large to travel, at the call that produced it, so the run stays readable.

Activity payloads are stored deflated (see `workflows._data_converter`), so a tool result of megabytes of
text can cross from the activity to the workflow. But a run's result and its `new_messages` query are plain
JSON for any client, and Temporal refuses any payload over ~2 MB: the run would complete and never be read.
The tool activity therefore measures the JSON of each result (plain values, `ToolReturn`s with their content
and metadata, binary content as base64) against the agent's `max_tool_result_bytes`, and refuses one over it
with `ModelRetry`: the model gets a retry prompt naming the size and the limit, counted against the tool's
retries like any other, and can ask for less.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import to_json

from agent.exceptions import ModelRetry

__all__ = ('DEFAULT_MAX_TOOL_RESULT_BYTES', 'check_result_size', 'result_size')

DEFAULT_MAX_TOOL_RESULT_BYTES = 512 * 1024
"""Bytes of JSON one tool result may take unless the agent sets its own limit."""


def result_size(result: Any) -> int:
    """Bytes of the JSON `result` crosses the activity boundary as."""
    return len(to_json(result))


def check_result_size(result: Any, limit: int) -> None:
    """Refuse `result` if its JSON takes more than `limit` bytes.

    Raises:
        ModelRetry: naming the result's size and the limit, for the model to see.
    """
    size = result_size(result)
    if size > limit:
        raise ModelRetry(
            f'The tool result is {size} bytes of JSON, more than the {limit} bytes allowed for one tool call. '
            'Ask for less: a narrower query, a summary, or one page of the data at a time.'
        )
