"""`AgentStream`: what `node.stream(ctx)` gives for a model request node of a run driven with `agent.iter()`.

It follows one model response: iterating it gives the response's events (part events and `FinalResultEvent`),
and `stream_text`, `stream_output`, `stream_response` and `get_output` read the final result out of them as
`StreamedRunResult` does for a whole run. The output it returns is validated here (the output validators see it
with `ctx.partial_output=False`); the run validates it again when it goes on to the next node.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from ._streamed_run_result import OutputDataT, StreamedRunResult
from .exceptions import UnexpectedModelBehavior

__all__ = ('AgentStream',)


class AgentStream(StreamedRunResult[OutputDataT]):
    """The stream of one model response of a run (from `node.stream(ctx)` on a model request node)."""

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._next_events()

    async def stream_output(self, *, debounce_by: float | None = 0.1) -> AsyncIterator[Any]:
        """Stream the output as it grows, ending with the output validated in full.

        Args:
            debounce_by: Gather the updates that arrive within this many seconds of the first of them, validating
                only the latest; `None` validates and yields every update.
        """
        async for partial in super().stream_output(debounce_by=debounce_by):
            yield partial
        yield await self._final_output()

    async def get_output(self) -> OutputDataT:
        """Read the response to its end and return its output, validated in full."""
        async for _ in self._updates():
            pass
        return await self._final_output()

    async def _final_output(self) -> Any:
        part = next((p for p in self._parts.values() if self._final_seen and self._is_final(p)), None)
        if part is None:
            raise UnexpectedModelBehavior('Invalid response, unable to find output')
        return await self._output_of(part, partial=False)
