"""S0, the floor: what S1, S3, S5, S9 and S10 measure, on bare Temporal workflows (`bench.bare`), in one invocation.

`s0_floor` runs the bare workflows through the phases of the scenarios selected with it (S1's sequential and
throughput phases, S3's approval, S5's thousand waiting runs, S9's fan-out, S10's parent and child) and keeps its
figures on the `Bench`; `against_floor` then puts each of those scenarios' figures next to the floor's and as a
ratio (`S0` and `over_S0` in the scenario's line), so a slow machine slows both sides and a regression still shows.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from temporalio.client import WorkflowHandle

from ._support import Bench, bounded, history_stats, ms, new_task_queue, p90, retrying, rss_mb, within
from .bare import bare_client, bare_worker, finish_bare, run_bare, start_bare, wait_bare
from .delegation import delegation_floor, delegation_shape
from .fan_out import fan_out_floor

__all__ = ('FLOOR_FIGURES', 'against_floor', 'floor_of', 's0_floor')

FLOOR_FIGURES: dict[str, tuple[str, ...]] = {
    'S1': (
        'median_ms',
        'p90_ms',
        'throughput_runs_per_s',
        'worker_cpu_ms_per_run',
        'throughput_median_ms',
        'history_events',
        'history_proto_bytes',
        'workflow_task_schedule_to_start_median_ms',
        'workflow_task_start_to_complete_median_ms',
    ),
    'S3': ('signal_to_result_ms', 'start_to_awaiting_ms', 'history_events', 'history_proto_bytes'),
    'S5': ('start_to_all_waiting_s', 'rss_kb_per_waiting_run', 'approve_to_all_complete_s', 'workflow_task_timeouts'),
    'S9': (
        'wall_ms',
        'worker_cpu_ms_per_run',
        'max_in_flight',
        'history_events',
        'history_proto_bytes',
        'proto_bytes_per_call',
        'workflow_tasks',
    ),
    'S10': (
        'median_ms',
        'p95_ms',
        'worker_cpu_ms_per_run',
        'history_events',
        'history_proto_bytes',
        'parent_history_events',
        'parent_history_proto_bytes',
        'child_history_events',
        'child_history_proto_bytes',
    ),
}
"""The figures of each scenario that the floor also measures, under the same names."""

_VARIANTS = {'S1L': 'S1', 'S3L': 'S3', 'S5L': 'S5'}
"""Scenarios measured against another's floor (the same work in local activities)."""


def floor_of(scenario: str) -> str | None:
    """The scenario whose floor `scenario` is reported against, if any."""
    base = _VARIANTS.get(scenario, scenario)
    return base if base in FLOOR_FIGURES else None


async def s0_floor(bench: Bench) -> dict[str, Any]:
    """The bare workflows through the phases of the selected scenarios among S1, S3, S5, S9 and S10."""
    client = bare_client(bench.client)
    floor: dict[str, dict[str, Any]] = {}
    selected = {floor_of(key) for key in bench.scenarios} if bench.scenarios else set(FLOOR_FIGURES)
    if 'S1' in selected:
        floor['S1'] = await _tool_loop(bench, client)
    if 'S3' in selected:
        floor['S3'] = await _approval(client)
    if 'S5' in selected:
        floor['S5'] = await _waiting(bench, client)
    if 'S9' in selected:
        queue = new_task_queue('S0')
        async with bare_worker(client, queue):
            floor['S9'] = await fan_out_floor(bench, client, queue)
    if 'S10' in selected:
        queue = new_task_queue('S0')
        async with bare_worker(client, queue):
            floor['S10'] = await delegation_floor(client, queue, delegation_shape(bench))
    bench.floor.update(floor)
    return dict(floor)


def against_floor(bench: Bench, scenario: str, metrics: dict[str, Any]) -> dict[str, Any]:
    """`S0` (the floor's figures for `scenario`) and `over_S0` (the scenario's over the floor's), if measured."""
    base = floor_of(scenario)
    floor = bench.floor.get(base) if base is not None else None
    if base is None or not floor or 'error' in metrics:
        return {}
    mine = {key: floor[key] for key in FLOOR_FIGURES[base] if key in floor}
    ratios = {
        key: round(metrics[key] / value, 2)
        for key, value in mine.items()
        if isinstance(metrics.get(key), int | float) and value
    }
    return {'S0': mine, 'over_S0': ratios}


async def _tool_loop(bench: Bench, client: Any) -> dict[str, Any]:
    queue = new_task_queue('S0')
    sequential, total, in_flight = (10, 40, 20) if bench.quick else (20, 100, 20)
    async with bare_worker(client, queue):
        for _ in range(2):
            await run_bare(client, queue)
        walls: list[float] = []
        handle = None
        for _ in range(sequential):
            wall, handle = await run_bare(client, queue)
            walls.append(wall)
        assert handle is not None
        stats = history_stats(await handle.fetch_history())
        cpu, started = time.process_time(), time.perf_counter()
        runs = await bounded(in_flight, [lambda: run_bare(client, queue)] * total)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {
        'median_ms': ms(statistics.median(walls)),
        'p90_ms': ms(p90(walls)),
        'throughput_runs_per_s': round(total / elapsed, 1),
        'worker_cpu_ms_per_run': ms(cpu / total),
        'throughput_median_ms': ms(statistics.median(run[0] for run in runs)),
        **stats,
    }


async def _approval(client: Any) -> dict[str, Any]:
    queue, measured = new_task_queue('S0'), 5
    to_wait: list[float] = []
    to_result: list[float] = []
    handle = None
    async with bare_worker(client, queue):
        for attempt in range(1 + measured):  # the first is a warm-up
            started = time.perf_counter()
            handle = await start_bare(client, queue, approval=True)
            await wait_bare(handle)
            signalled = time.perf_counter()
            await handle.signal('approve')
            await within(30, f'Bare run {handle.id} after its approval', finish_bare(handle))
            if attempt:
                to_wait.append(signalled - started)
                to_result.append(time.perf_counter() - signalled)
        assert handle is not None
        stats = history_stats(await handle.fetch_history())
    return {
        'signal_to_result_ms': ms(statistics.median(to_result)),
        'start_to_awaiting_ms': ms(statistics.median(to_wait)),
        **stats,
    }


async def _waiting(bench: Bench, client: Any) -> dict[str, Any]:
    queue, count = new_task_queue('S0'), bench.waiting_runs

    async def all_waiting(handles: list[WorkflowHandle[Any, str]]) -> None:
        await bounded(20, [lambda h=h: retrying(lambda: wait_bare(h, 600)) for h in handles])

    async with bare_worker(client, queue):
        warm = await start_bare(client, queue, approval=True)
        await wait_bare(warm)
        await warm.signal('approve')
        await finish_bare(warm)
        before = rss_mb()
        started = time.perf_counter()
        handles: list[WorkflowHandle[Any, str]] = await bounded(
            50, [lambda: start_bare(client, queue, approval=True)] * count
        )
        await within(0.6 * max(count, 1000), 'Bare runs waiting', all_waiting(handles))
        waiting_s, waiting = time.perf_counter() - started, rss_mb()
        approved = time.perf_counter()
        await bounded(50, [lambda h=h: retrying(lambda: h.signal('approve')) for h in handles])
        await within(
            600,
            'Completing the bare runs',
            bounded(200, [lambda h=h: retrying(lambda: finish_bare(h)) for h in handles]),
        )
        completed = time.perf_counter()
    histories = await bounded(50, [lambda h=h: retrying(h.fetch_history) for h in handles])
    return {
        'runs': count,
        'start_to_all_waiting_s': round(waiting_s, 2),
        'rss_kb_per_waiting_run': round((waiting - before) * 1024 / count, 1),
        'approve_to_all_complete_s': round(completed - approved, 2),
        'workflow_task_timeouts': sum(history_stats(h)['workflow_task_timeouts'] for h in histories),
    }
