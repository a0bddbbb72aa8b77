"""The activity side's capability instances, one per run, as `for_run` gives them in-process.

In-process, a run uses `capability.for_run(ctx)` for its whole length, so a capability can keep per-run state
(a request counter, a budget). An activity serves many runs, so it keeps the per-run instance of each run it
has seen (a bounded cache by run id) and uses it for the I/O hooks that run there. The state lives on the
worker: a run whose activities move to another worker (or a restarted one) starts that state afresh there.
Capabilities whose state must survive that belong on the workflow side (`hook_sides`), whose state is durable.
"""

from __future__ import annotations

import logging
from typing import Any

from agent._run_context import RunContext
from agent.capabilities import AbstractCapability, CombinedCapability, split_by_side
from agent.exceptions import UserError

from ._message_store import LruStore

__all__ = ('RunCapabilities',)

log = logging.getLogger(__name__)


def _has_per_run_state(capability: AbstractCapability[Any]) -> bool:
    if isinstance(capability, CombinedCapability):
        return any(_has_per_run_state(part) for part in capability.capabilities)
    return type(capability).for_run is not AbstractCapability.for_run


class RunCapabilities:
    """The activity-side halves of an agent's capabilities, per run when any capability has per-run state."""

    def __init__(self, combined: CombinedCapability[Any], max_runs: int = 1_000) -> None:
        self._combined = combined
        self._shared = split_by_side(combined)[1]
        self._per_run = _has_per_run_state(combined)
        # Per run id: the whole per-run capability and its activity-side half.
        self._runs: LruStore[str, tuple[AbstractCapability[Any], AbstractCapability[Any]]] = LruStore(max_runs)

    async def _for_run(self, ctx: RunContext[Any]) -> tuple[AbstractCapability[Any], AbstractCapability[Any]]:
        if not self._per_run or not ctx.run_id:
            return self._combined, self._shared
        found = self._runs.get(ctx.run_id)
        if found is None:
            try:
                per_run = await self._combined.for_run(ctx)
            except UserError as error:
                # `for_run` read a run context field that does not cross into activities (see `NotCrossed`).
                log.warning('for_run could not run in an activity (%s); using the registered capabilities', error)
                per_run = self._combined
            found = (per_run, split_by_side(per_run)[1])
            self._runs.put(ctx.run_id, found)
        return found

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        """The run's whole capability, as in-process: its toolsets, toolset wrapper and event stream hook."""
        return (await self._for_run(ctx))[0]

    async def for_activity(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        """The capability whose I/O hooks wrap this activity's call."""
        return (await self._for_run(ctx))[1]
