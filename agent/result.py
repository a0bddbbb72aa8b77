"""Run results: `FinalResult` (what ends the graph) and the result objects of streamed runs.

The streamed results live in their own modules, which build on `StreamedRunResult`; this module is their public
home and imports them, never the other way round.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic

from ._agent_event_stream import AgentEventStream
from ._agent_stream import AgentStream
from ._streamed_run_result import OutputDataT, StreamedRunResult
from ._streamed_run_sync import StreamedRunResultSync

__all__ = ('AgentEventStream', 'AgentStream', 'FinalResult', 'StreamedRunResult', 'StreamedRunResultSync')


@dataclass
class FinalResult(Generic[OutputDataT]):
    """The final output of a run, carried by the `End` node that stops the graph."""

    output: OutputDataT
    """The output value."""
    tool_name: str | None = None
    """The output tool that produced it, or `None` for text output."""
    tool_call_id: str | None = None
    """The id of that output tool call, if any."""
