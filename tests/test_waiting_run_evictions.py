"""When a worker evicts a waiting run: at once, after a quiet while for a watched one, never for a working one.

The durable tests (tests/durable/test_eviction.py) check it on a real worker; these pin the order of activations
that is hard to bring about there: a query answered in the middle of a replay, followed by the replay's last
activation.
"""

from __future__ import annotations

import asyncio

import pytest
from temporalio.bridge.proto.workflow_completion import WorkflowActivationCompletion

from workflows._eviction import ActivationOutcome, WaitingRunEvictions

pytestmark = pytest.mark.asyncio

STAY = 0.05
"""A queried run's quiet while, in seconds (short: the tests wait it out)."""


class Core:
    """SDK core as the worker's bridge: takes completions, and records the evictions asked of it."""

    def __init__(self) -> None:
        self.evicted: list[str] = []

    async def complete_workflow_activation(self, completion: WorkflowActivationCompletion) -> None:
        return None

    def request_workflow_eviction(self, run_id: str) -> None:
        self.evicted.append(run_id)


async def activation(
    evictions: WaitingRunEvictions, core: Core, outcome: ActivationOutcome | None, run_id: str = 'r'
) -> None:
    """One activation of a run completed; `outcome` is what the runner said of it (`None`: a replay)."""
    if outcome is not None:
        evictions.note('w', run_id, outcome)
    await evictions.completed(core, WorkflowActivationCompletion(run_id=run_id))


async def evicted(core: Core, run_id: str) -> None:
    """Return once `run_id` has been evicted (bounded)."""
    async with asyncio.timeout(10):
        while run_id not in core.evicted:  # noqa: ASYNC110 (the fake core has no event to wait on)
            await asyncio.sleep(STAY / 5)


async def a_quiet_while_later(evictions: WaitingRunEvictions, core: Core) -> None:
    """Return once a quiet while has passed for everything queried so far: a run queried now has been evicted."""
    await activation(evictions, core, 'queried', 'probe')
    await evicted(core, 'probe')


async def test_a_run_left_waiting_is_evicted_at_once() -> None:
    core, evictions = Core(), WaitingRunEvictions(queried_stay=STAY)
    await activation(evictions, core, 'waiting')
    assert core.evicted == ['r']


async def test_a_queried_run_is_evicted_after_a_quiet_while_and_each_query_starts_it_again() -> None:
    core, evictions = Core(), WaitingRunEvictions(queried_stay=STAY)
    await activation(evictions, core, 'queried')
    await activation(evictions, core, 'queried')
    assert core.evicted == []  # not at once
    await a_quiet_while_later(evictions, core)
    assert core.evicted.count('r') == 1  # the second query's wait replaced the first's


async def test_a_replay_after_a_query_leaves_the_eviction_in_place() -> None:
    core, evictions = Core(), WaitingRunEvictions(queried_stay=STAY)
    await activation(evictions, core, 'queried')  # the query, answered mid-replay
    await activation(evictions, core, None)  # the replay's last activation
    await evicted(core, 'r')


@pytest.mark.parametrize('outcome', ['working', 'evicted'])
async def test_a_run_that_works_again_or_left_the_cache_is_not_evicted_later(outcome: ActivationOutcome) -> None:
    core, evictions = Core(), WaitingRunEvictions(queried_stay=STAY)
    await activation(evictions, core, 'queried')
    await activation(evictions, core, outcome)
    await a_quiet_while_later(evictions, core)
    assert 'r' not in core.evicted


async def test_a_stopping_worker_forgets_the_evictions_it_has_not_made() -> None:
    core, evictions = Core(), WaitingRunEvictions(queried_stay=STAY)
    await activation(evictions, core, 'queried')
    evictions.cancel_pending()
    await a_quiet_while_later(evictions, core)
    assert 'r' not in core.evicted
