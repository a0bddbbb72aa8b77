"""Runs that wait for a person leave the worker's memory until the answer comes.

A Temporal worker keeps the runs it has served in its workflow cache (up to `max_cached_workflows`), so that
the next task of a run continues it in place instead of replaying its history. A run waiting for an approval
may wait for days, and a worker holding thousands of them would hold their agent graphs, messages and sandbox
state all that time. So once a run's activation leaves it waiting for deferred tool results with nothing of its
own in flight, the worker drops it from the cache; when the answer (or a timer, or a query) arrives, the worker
replays the run from its history, which is short at that point, and carries on.

How, since the SDK has no public call to evict one run:

- The workflow registers a predicate once per instance, through an extern function (`workflow.extern_functions()`
  is the SDK's public way for workflow code to reach the worker): `watch_waiting(predicate)`. The predicate reads
  the run's own state and touches nothing; registering is not a command, so replays stay deterministic, and a
  runner without the extern function (the `Replayer`, other workers) makes it a no-op.
- `workflows._runner.AgentWorkflowRunner` wraps the worker's runner (a public extension point) and asks the
  predicate after every activation that completed successfully and is not a replay (a resumed run replays through
  its waiting point on its way to the answer). A run that waits is noted for eviction.
- The worker asks SDK core to evict the noted run only after it handed core that activation's completion
  (`AgentWorker`): core reports the workflow task to the server first, then sends the eviction activation, which
  the SDK processes like a cache-full eviction. Asking earlier would also work in this core, but it would drop
  a query riding on that task. Eviction at any point is always safe in Temporal (a run must replay to the same
  commands); this only chooses a point where it is cheap.

The eviction request is the private part: core's `request_workflow_eviction` (which every SDK's bridge exposes),
reached through the worker's `_bridge_worker`; `tests/durable/test_eviction.py` pins both. On a cache miss core
fetches the run's full history itself, so the next task of an evicted run fails nothing.

The worker then also resets the run's stickiness on the server (`ResetStickyTaskQueue`, one call per eviction), so
the task that resumes it goes to the task queue every worker polls instead of this worker's own sticky queue:
- a run waiting for days is not tied to the worker that last served it (if that worker is gone when the answer
  comes, the task does not first wait out the sticky queue's schedule-to-start timeout);
- under a burst of answers, resumed runs wait their turn in the normal queue, which has no schedule-to-start
  timeout, instead of timing out of a busy worker's sticky queue by the hundred.
The run has just left this worker's cache, so a sticky task would have been a replay anyway.

A run that a person or a page is watching is asked again and again while it waits (`agents run --watch`, the chat
page and the inbox query it). The first query replays it; after a query it stays cached until it has gone
`QUERIED_STAY` without one, so a run polled ten times a second is replayed once, not ten times a second (each replay
took a workflow-task slot and the worker's CPU: under load the polls starved the other runs' tasks). Replaying
activations leave that pending eviction as it was: core can answer a query in the middle of a replay, and the
replay's remaining activations say nothing new about the run.

The price is one replay when the run resumes (about 9 ms of worker CPU for the benchmark's approval run, whose
history is 14 events at that point), and one when a query comes after the run has been left alone for a while.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, Literal

import temporalio.workflow
from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.workflowservice.v1 import ResetStickyTaskQueueRequest
from temporalio.bridge.proto.workflow_completion import WorkflowActivationCompletion
from temporalio.client import Client
from temporalio.service import RPCError

__all__ = ('QUERIED_STAY', 'WAITING_EXTERN', 'ActivationOutcome', 'WaitingRunEvictions', 'watch_waiting')

ActivationOutcome = Literal['waiting', 'queried', 'working', 'evicted']
"""What a run's activation (not a replay) left it doing: `waiting` for a person (evict it now), `queried` (it only
answered queries and waits: evict it once no activation has come for a while), `working`, or `evicted` from the
cache."""

QUERIED_STAY = 30.0
"""Seconds a waiting run stays in the cache after a query, so that polling it does not replay it per poll."""

WAITING_EXTERN = 'agent_runtime.watch_waiting'
"""The extern function a workflow instance registers its "waits for a person" predicate with."""


def watch_waiting(predicate: Callable[[], bool]) -> None:
    """Tell the worker how to see that this run waits for a person (call once, in the workflow's `__init__`).

    `predicate` is called after each activation, outside the workflow's event loop: it must only read state.
    """
    register = temporalio.workflow.extern_functions().get(WAITING_EXTERN)
    if register is not None:
        register(predicate)


log = logging.getLogger(__name__)


class WaitingRunEvictions:
    """One worker's evictions of waiting runs: the runner that notes them and the hook that requests them.

    Args:
        client: The worker's client, to reset an evicted run's stickiness with; `None` to leave it sticky.
        queried_stay: Seconds a run that answered a query stays cached without another activation before it is
            evicted; `None` for `QUERIED_STAY`.
    """

    def __init__(self, client: Client | None = None, *, queried_stay: float | None = None) -> None:
        self._client = client
        self._queried_stay = QUERIED_STAY if queried_stay is None else queried_stay
        self._noted: dict[str, tuple[str, ActivationOutcome]] = {}  # run id -> (workflow id, what it does now)
        self._later: dict[str, asyncio.TimerHandle] = {}  # run id -> its eviction after a quiet while
        self._resets: set[asyncio.Task[None]] = set()
        self.requested = 0
        """Evictions requested so far (a run is counted each time it starts waiting again)."""

    def note(self, workflow_id: str, run_id: str, state: ActivationOutcome) -> None:
        """Say what an activation of run `run_id` left it doing (called from workflow task threads; see
        `ActivationOutcome`); acted on once the activation is completed. A replay says nothing: it leaves the run's
        eviction as it was.
        """
        self._noted[run_id] = (workflow_id, state)  # one item set: atomic

    def install(self, worker: Any) -> None:
        """Request the noted evictions on `worker` (a `temporalio.worker.Worker`) once their completions are sent.

        The SDK's workflow and activity workers reach core through `worker._bridge_worker` each time they call
        it, so a wrapper put there sees every completion.
        """
        worker._bridge_worker = _EvictingBridge(worker._bridge_worker, self)

    def cancel_pending(self) -> None:
        """Forget the evictions waiting for a quiet while (the worker is shutting down: its cache goes anyway)."""
        for later in self._later.values():
            later.cancel()
        self._later.clear()

    async def completed(self, bridge: Any, completion: WorkflowActivationCompletion) -> None:
        run_id = completion.run_id
        try:
            await bridge.complete_workflow_activation(completion)
        except BaseException:
            self._noted.pop(run_id, None)
            raise
        noted = self._noted.pop(run_id, None)
        if noted is None:
            return  # a replay, or a run no predicate watches
        later = self._later.pop(run_id, None)
        if later is not None:
            later.cancel()  # the run was active again: this activation decides
        workflow_id, state = noted
        if state == 'queried' and self._queried_stay > 0:
            self._later[run_id] = asyncio.get_running_loop().call_later(
                self._queried_stay, self._evict_quiet, bridge, workflow_id, run_id
            )
        elif state in ('waiting', 'queried'):
            self._evict(bridge, workflow_id, run_id)

    def _evict_quiet(self, bridge: Any, workflow_id: str, run_id: str) -> None:
        self._later.pop(run_id, None)
        try:
            self._evict(bridge, workflow_id, run_id)
        except Exception as exc:  # only a cost: the run stays cached until the cache needs room
            log.debug('Could not evict run %s of %s: %s', run_id, workflow_id, exc)

    def _evict(self, bridge: Any, workflow_id: str, run_id: str) -> None:
        self.requested += 1
        bridge.request_workflow_eviction(run_id)
        if self._client is not None:
            task = asyncio.create_task(self._reset_stickiness(self._client, workflow_id, run_id))
            self._resets.add(task)  # held until done: the loop keeps only weak references to tasks
            task.add_done_callback(self._resets.discard)

    async def _reset_stickiness(self, client: Client, workflow_id: str, run_id: str) -> None:
        request = ResetStickyTaskQueueRequest(
            namespace=client.namespace, execution=WorkflowExecution(workflow_id=workflow_id, run_id=run_id)
        )
        try:
            await client.workflow_service.reset_sticky_task_queue(request)
        except RPCError as exc:
            # Only a cost: the run's next task goes to this worker's sticky queue, as without the reset.
            log.debug('Could not reset the stickiness of run %s of %s: %s', run_id, workflow_id, exc)


class _EvictingBridge:
    """Core's worker as the SDK sees it, with evictions requested after the completions that ask for them."""

    def __init__(self, bridge: Any, evictions: WaitingRunEvictions) -> None:
        self._bridge = bridge
        self._evictions = evictions

    async def complete_workflow_activation(self, completion: WorkflowActivationCompletion) -> None:
        await self._evictions.completed(self._bridge, completion)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._bridge, name)
