"""`RunAttributes`: a run's search attributes, upserted from inside the workflow only when a value changes.

Each upsert is an event in the run's history, so the run never upserts per step: it keeps what it last recorded
(starting from the attributes the run started with, which continue-as-new carries over) and upserts only the
values that differ. A watcher task notices changes that happen deep in the agent graph (a tool call starts
waiting for approval) without hooks in it: it waits on a condition comparing what the run shows now with what it
last recorded, and the workflow's event loop checks that condition deterministically, at the same points on
replay.

A second watcher, on the same view (decision records included), keeps the workflow's current details (what the
Web UI shows as what the run is doing or waiting for, and how its deferred tool calls were decided, see
`workflows._run_details`) up to date. Setting them adds nothing to the history, so runs that do not record
attributes (those started before the attributes existed) show them too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from temporalio import workflow
from temporalio.common import SearchAttributeKey, SearchAttributeUpdate

from ._run_details import RunView, current_details
from ._search_attributes import (
    AGENT_NAME,
    AGENT_OWNER,
    AGENT_STATE,
    AGENT_VERSION,
    PENDING_APPROVALS,
    RECORD_SEARCH_ATTRIBUTES,
)

__all__ = ('RunAttributes', 'RunView')


class RunAttributes:
    """Records a run's search attributes (unless the run decided not to: see `workflows._search_attributes`) and
    keeps its current details up to date.

    Args:
        view: what the run shows now; called whenever the workflow's conditions are checked, so keep it cheap.
    """

    def __init__(self, view: Callable[[], RunView]) -> None:
        self._view = view
        self._enabled = False
        self._recorded: dict[str, Any] = {}
        self._watcher: asyncio.Task[None] | None = None
        self._shown: RunView | None = None
        self._details_watcher: asyncio.Task[None] | None = None

    def start(self, agent: str, owner: str | None, version: str | None = None) -> None:
        """Decide (once, as the run starts) whether the run records attributes; if so record them and keep watching.

        The current details are kept up to date either way. `version` is recorded as `AgentVersion` with the other
        attributes, in the same upsert (see `workflows._agent_version`); `None` records none.
        """
        self._show(self._view())
        self._details_watcher = asyncio.create_task(self._watch_details())
        self._enabled = workflow.patched(RECORD_SEARCH_ATTRIBUTES)
        if not self._enabled:
            return
        for pair in workflow.info().typed_search_attributes:
            self._recorded[pair.key.name] = pair.value
        versioned = {AGENT_VERSION: version} if version is not None else {}
        self._record({AGENT_NAME: agent, AGENT_OWNER: owner, **versioned, **self._values(self._view())})
        self._watcher = asyncio.create_task(self._watch())

    def stop(self, *, record: bool = True) -> None:
        """Stop watching; with `record`, record the run's final view (completed or failed) first."""
        for watcher in (self._watcher, self._details_watcher):
            if watcher is not None:
                watcher.cancel()
        self._watcher = self._details_watcher = None
        if record:
            self._show(self._view())
        if self._enabled and record:
            self._record(self._values(self._view()))

    async def _watch_details(self) -> None:
        # A task of its own, apart from the attributes' watcher: it adds no commands, so however often it wakes, the
        # upserts happen exactly where they did before the details existed (replay compares their order).
        while True:
            await workflow.wait_condition(lambda: self._view() != self._shown)
            self._show(self._view())

    def _show(self, view: RunView) -> None:
        self._shown = view
        workflow.set_current_details(current_details(view))

    async def _watch(self) -> None:
        while True:
            await workflow.wait_condition(lambda: self._changed(self._values(self._view())))
            self._record(self._values(self._view()))

    @staticmethod
    def _values(view: RunView) -> dict[SearchAttributeKey[Any], Any]:
        return {AGENT_STATE: view.state, PENDING_APPROVALS: view.pending_approvals}

    def _changed(self, values: dict[SearchAttributeKey[Any], Any]) -> bool:
        return any(self._recorded.get(key.name) != value for key, value in values.items())

    def _record(self, values: dict[SearchAttributeKey[Any], Any]) -> None:
        updates: list[SearchAttributeUpdate[Any]] = []
        for key, value in values.items():
            if self._recorded.get(key.name) == value:
                continue
            self._recorded[key.name] = value
            updates.append(key.value_unset() if value is None else key.value_set(value))
        if updates:
            workflow.upsert_search_attributes(updates)
