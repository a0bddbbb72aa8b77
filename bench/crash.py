"""S4, crash and resume: a worker subprocess killed with SIGKILL in the middle of a tool, and a new one that finishes.

The worker runs `bench.agents:crash_agent` (or `crash_agent_local`) through `worker.py`; tool bodies and model requests
append to a counter file, so the scenario sees what ran twice.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from worker import temporal_cli_path
from workflows import data_converter

from ._support import ROOT, Bench, history_stats, new_task_queue, start, within
from .agents import tool_loop_output

__all__ = ('s4_crash_resume', 's4_crash_resume_local')


async def spawn_worker(
    client: Client, queue: str, counter: Path, stderr: Path, agent: str = 'crash_agent'
) -> asyncio.subprocess.Process:
    with stderr.open('ab') as err:
        return await asyncio.create_subprocess_exec(
            sys.executable,
            str(ROOT / 'worker.py'),
            '--agents',
            f'bench.agents:{agent}',
            '--address',
            client.service_client.config.target_host,
            '--task-queue',
            queue,
            cwd=ROOT,
            env={**os.environ, 'PYTHONPATH': str(ROOT), 'BENCH_COUNTER': str(counter), 'BENCH_SLOW_SECONDS': '2'},
            stdout=asyncio.subprocess.PIPE,
            stderr=err,
        )


def tail(path: Path) -> str:
    return path.read_text()[-2000:] if path.exists() else ''


def has_word(path: Path, word: str) -> bool:
    return path.exists() and word in path.read_text().split()


async def wait_ready(worker: asyncio.subprocess.Process, stderr: Path) -> None:
    """Wait for the worker's start-up line (printed once it is about to poll)."""
    assert worker.stdout is not None
    line = await within(30, 'The worker subprocess start-up', worker.stdout.readline())
    if not line.startswith(b'Worker running'):
        raise RuntimeError(f'The worker subprocess did not start: {tail(stderr)}')


async def wait_for_word(path: Path, word: str) -> None:
    for _ in range(1500):  # bounded (30 s): another process writes the file, so there is no event to await
        if has_word(path, word):
            return
        await asyncio.sleep(0.02)
    raise RuntimeError(f'{word!r} never appeared in {path}')


async def s4_crash_resume(bench: Bench) -> dict[str, Any]:
    metrics = await crash_and_resume(bench.client)
    # The same on a dev server with Temporal's stock settings, whose timers fire at least a second after they
    # are set (see worker.DEV_SERVER_TIMER_FLOOR): what a cluster that keeps the default adds to a failover.
    stock = await WorkflowEnvironment.start_local(
        data_converter=data_converter, dev_server_existing_path=temporal_cli_path(), dev_server_log_level='error'
    )
    try:
        on_stock = await crash_and_resume(stock.client)
    finally:
        await stock.shutdown()
    kept = ('completed', 'tool_runs', 'new_worker_start_to_result_s', 'retry_started_after_kill_s')
    metrics['stock_server_timer_floor'] = {key: on_stock[key] for key in kept}
    return metrics


async def s4_crash_resume_local(bench: Bench) -> dict[str, Any]:
    return await crash_and_resume(bench.client, local=True)


async def crash_and_resume(client: Client, *, local: bool = False) -> dict[str, Any]:
    queue, kill_after = new_task_queue('S4'), 0.5
    agent, name = ('crash_agent_local', 'bench_crash_local') if local else ('crash_agent', 'bench_crash')
    with tempfile.TemporaryDirectory(prefix='bench-s4-') as tmp:
        counter, stderr = Path(tmp) / 'counter.log', Path(tmp) / 'worker.log'
        workers: list[asyncio.subprocess.Process] = []
        try:
            workers.append(first := await spawn_worker(client, queue, counter, stderr, agent))
            await wait_ready(first, stderr)
            handle = await start(client, queue, name, 'go')
            await wait_for_word(counter, 'fetch_a')
            await asyncio.sleep(kill_after)  # well inside fetch_a's 2 s sleep; fetch_b has long returned
            first.send_signal(signal.SIGKILL)
            await first.wait()
            killed_at = time.time()

            restarted = time.perf_counter()
            workers.append(second := await spawn_worker(client, queue, counter, stderr, agent))
            await wait_ready(second, stderr)
            ready = time.perf_counter()
            try:
                result = await asyncio.wait_for(handle.result(), 60)
            except TimeoutError:
                raise RuntimeError(f'No result 60 s after the restart: {tail(stderr)}') from None
            done = time.perf_counter()
        finally:
            for worker in workers:
                if worker.returncode is None:
                    worker.kill()
                    await worker.wait()
        counts = Counter(counter.read_text().split())
    history = await handle.fetch_history()
    stats = history_stats(history)
    retried = [
        event
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
        and event.activity_task_started_event_attributes.attempt > 1
    ]
    return {
        'completed': result.output == tool_loop_output(),
        'tool_runs': {tool: counts[tool] for tool in ('lookup', 'fetch_a', 'fetch_b')},
        'model_requests': counts['model'],
        'killed_after_s_into_fetch_a': kill_after,
        'new_worker_start_to_result_s': round(done - restarted, 2),
        'new_worker_ready_to_result_s': round(done - ready, 2),
        'new_worker_startup_s': round(ready - restarted, 2),
        # When the server handed the killed activity's next attempt to the new worker (heartbeat timeout
        # plus retry back-off), on the server's clock (the same machine's).
        'retry_started_after_kill_s': [round(e.event_time.ToDatetime().timestamp() - killed_at, 2) for e in retried],
        'history_events': stats['history_events'],
        'activities_scheduled': stats['activities_scheduled'],
        'workflow_task_timeouts': stats['workflow_task_timeouts'],
    }
