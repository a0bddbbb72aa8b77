"""The benchmark's delegation scenario (S10, `bench.delegation`) in its smallest shape, against its floor."""

from __future__ import annotations

from typing import Any

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from bench._support import Bench, new_task_queue
from bench.bare import bare_client, bare_worker
from bench.delegation import DelegationShape, delegation, delegation_floor
from bench.floor import FLOOR_FIGURES, against_floor
from bench.run import parse_scenarios

SIDES = ('parent', 'child')


def assert_parent_and_child_add_up(figures: dict[str, Any]) -> None:
    for total in ('history_events', 'history_proto_bytes'):
        sides: list[int] = [figures[f'{side}_{total}'] for side in SIDES]
        assert all(value > 0 for value in sides), (total, sides)
        assert figures[total] == sum(sides)
    assert figures['parent_workflow_task_failures'] == figures['child_workflow_task_failures'] == 0


@pytest.mark.asyncio(loop_scope='session')
async def test_the_delegation_scenario_reports_parent_and_child_histories_against_the_bare_floor(
    temporal_env: WorkflowEnvironment, client: Client
) -> None:
    shape = DelegationShape(runs=2, warmups=1)
    bench = Bench(temporal_env, quick=True, scenarios=('S0', 'S10'))
    queue, bare = new_task_queue('S0'), bare_client(client)
    async with bare_worker(bare, queue):
        bench.floor['S10'] = floor = await delegation_floor(bare, queue, shape)

    metrics = await delegation(client, shape)

    assert metrics['runs'] == 2
    for figures in (metrics, floor):
        assert 0 < figures['median_ms'] <= figures['p95_ms']
        assert figures['worker_cpu_ms_per_run'] > 0
        assert_parent_and_child_add_up(figures)
        assert figures['child_activities_scheduled'] == 6  # S1's: three model requests, three tools
    # The bare parent only starts its child; the agent's parent asks its model and runs the delegating tool.
    assert floor['parent_activities_scheduled'] == 0
    assert metrics['parent_activities_scheduled'] > 0
    assert metrics['model_requests'] == 5, "the parent's two and the child's three, the child's counted once"
    assert metrics['inprocess_median_ms'] > 0

    line = against_floor(bench, 'S10', metrics)
    assert set(line['S0']) == set(line['over_S0']) == set(FLOOR_FIGURES['S10'])
    assert line['S0']['child_history_events'] == floor['child_history_events']
    assert line['over_S0']['history_events'] == round(metrics['history_events'] / floor['history_events'], 2)


def test_the_delegation_scenario_brings_its_floor_into_the_same_invocation() -> None:
    assert parse_scenarios('S10') == ['S0', 'S10']
