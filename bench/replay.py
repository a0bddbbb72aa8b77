"""S6: replaying a 50-step run, what a worker does when a run it dropped from its cache gets its next task.

The history is S2's 50-step run (recorded in the same invocation, or by a fresh run), replayed with
`worker.build_replayer`, which runs the workflow the way a worker does. Next to it, the floor: a bare Temporal
workflow with as many sequential activities (`bench.bare.BareSteps`, 101: a model request and a tool call per step
and the final model request, each returning 5000 bytes), replayed with the SDK's defaults. The two alternate, so a
burst of load on the machine slows both; process CPU time is reported as well as wall time, since CPU time is what
a replay costs a busy worker and is less disturbed by other processes.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer

from worker import build_replayer, build_worker

from ._support import NO_REQUEST_LIMIT, Bench, ms, new_task_queue, run_durable
from .agents import long_run_agent, long_run_output
from .bare import BareSteps, bare_client, bare_worker

__all__ = ('s6_replay',)

STEPS = 50
MEASURED = 7


async def _replay(replayer: Replayer, history: WorkflowHistory) -> tuple[float, float]:
    """Wall and CPU seconds of one replay."""
    started, cpu = time.perf_counter(), time.process_time()
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    if result.replay_failure is not None:
        raise RuntimeError(f'Replay failed: {result.replay_failure}')
    return wall, cpu


async def _bare_history(bench: Bench, activities: int) -> WorkflowHistory:
    client, queue = bare_client(bench.client), new_task_queue('S6')
    async with bare_worker(client, queue):
        handle = await client.start_workflow(BareSteps.run, activities, id=f'{queue}-steps', task_queue=queue)
        await handle.result()
    return await handle.fetch_history()


async def s6_replay(bench: Bench) -> dict[str, Any]:
    history = bench.recorded.get('long_run_50')
    if history is None:
        queue = new_task_queue('S6')
        async with build_worker(
            bench.client, {'bench_long_run': long_run_agent}, task_queue=queue, sandboxed=bench.sandboxed
        ):
            _, handle = await run_durable(
                bench.client, queue, 'bench_long_run', str(STEPS), long_run_output(STEPS), usage_limits=NO_REQUEST_LIMIT
            )
            history = await handle.fetch_history()
    bare = await _bare_history(bench, 2 * STEPS + 1)
    replayer = build_replayer({'bench_long_run': long_run_agent}, sandboxed=bench.sandboxed)
    floor = Replayer(workflows=[BareSteps], build_id='bare')
    first, _ = await _replay(replayer, history)
    await _replay(floor, bare)
    mine: list[tuple[float, float]] = []
    theirs: list[tuple[float, float]] = []
    for _ in range(MEASURED):
        mine.append(await _replay(replayer, history))
        theirs.append(await _replay(floor, bare))
    wall, cpu = statistics.median(w for w, _ in mine), statistics.median(c for _, c in mine)
    bare_wall, bare_cpu = statistics.median(w for w, _ in theirs), statistics.median(c for _, c in theirs)
    return {
        'steps': STEPS,
        'history_events': len(history.events),
        'replay_first_ms': ms(first),
        'replay_median_ms': ms(wall),
        'replay_cpu_median_ms': ms(cpu),
        'replays': MEASURED,
        'S0': {
            'history_events': len(bare.events),
            'replay_median_ms': ms(bare_wall),
            'replay_cpu_median_ms': ms(bare_cpu),
        },
        'over_S0': {'replay_median_ms': round(wall / bare_wall, 2), 'replay_cpu_median_ms': round(cpu / bare_cpu, 2)},
    }
