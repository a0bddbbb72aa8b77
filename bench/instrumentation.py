"""S1 with instrumentation: the CPU that tracing and the GenAI metrics add to a worker running the tool loop.

The tool loop (S1) runs one run at a time, in short batches alternating between two workers of this process: one
without instrumentation, one with everything on (`Agent(instrument=...)`, Temporal's tracing interceptor on the
client and the worker, the run's workflow spans). Spans go through a `BatchSpanProcessor` to an exporter that drops
them, and metrics to an in-memory reader, so the cost measured is producing and processing them, not a network. CPU
is this process's (client and worker; the dev server runs in its own), per run, the median over the batches.
Reported, not asserted (the target: under 10% more).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from temporalio.client import Client

from agent import InstrumentationSettings
from worker import build_worker
from workflows._tracing import with_tracing

from ._support import Bench, ms, new_task_queue, run_durable
from .agents import build_agent, tool_loop, tool_loop_output

__all__ = ('s1_instrumentation_cost',)


class _DroppingExporter(SpanExporter):
    """Counts the spans it is given and keeps none."""

    def __init__(self) -> None:
        self.spans = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.spans += len(spans)
        return SpanExportResult.SUCCESS


async def _cpu_per_run(client: Client, queue: str, name: str, runs: int) -> float:
    expected = tool_loop_output()
    cpu = time.process_time()
    for _ in range(runs):
        await run_durable(client, queue, name, 'go', expected)
    return (time.process_time() - cpu) / runs


async def s1_instrumentation_cost(bench: Bench) -> dict[str, Any]:
    """Worker CPU per S1 run without and with instrumentation, and the difference in percent."""
    rounds, runs = (4, 10) if bench.quick else (12, 20)
    exporter = _DroppingExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(exporter))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    plain = build_agent('bench_tool_loop_plain', tool_loop)
    traced = build_agent('bench_tool_loop_traced', tool_loop)
    traced.instrument = InstrumentationSettings(tracer_provider=tracer_provider, meter_provider=meter_provider)
    traced_client = with_tracing(bench.client, tracer_provider)
    plain_queue, traced_queue = new_task_queue('S1i'), new_task_queue('S1i')
    base: list[float] = []
    instrumented: list[float] = []
    async with (
        build_worker(bench.client, {'bench_tool_loop_plain': plain}, task_queue=plain_queue),
        build_worker(traced_client, {'bench_tool_loop_traced': traced}, task_queue=traced_queue),
    ):
        await _cpu_per_run(bench.client, plain_queue, 'bench_tool_loop_plain', 3)  # warm-ups
        await _cpu_per_run(traced_client, traced_queue, 'bench_tool_loop_traced', 3)
        tracer_provider.force_flush()
        exported_before = exporter.spans
        # Short batches, alternated and in turn first, so drift in the machine's load hits both alike; runs one at
        # a time, so every run does the same work (runs in flight together share workflow tasks by luck of timing).
        for round_ in range(rounds):
            for traced_turn in (False, True) if round_ % 2 == 0 else (True, False):
                if traced_turn:
                    instrumented.append(await _cpu_per_run(traced_client, traced_queue, 'bench_tool_loop_traced', runs))
                else:
                    base.append(await _cpu_per_run(bench.client, plain_queue, 'bench_tool_loop_plain', runs))
    tracer_provider.force_flush()
    tracer_provider.shutdown()
    base_cpu, traced_cpu = statistics.median(base), statistics.median(instrumented)
    return {
        'runs_per_round': runs,
        'rounds': rounds,
        'worker_cpu_ms_per_run_rounds': [ms(cpu) for cpu in base],
        'instrumented_worker_cpu_ms_per_run_rounds': [ms(cpu) for cpu in instrumented],
        'worker_cpu_ms_per_run': ms(base_cpu),
        'instrumented_worker_cpu_ms_per_run': ms(traced_cpu),
        'instrumentation_cpu_overhead_pct': round((traced_cpu / base_cpu - 1) * 100, 1),
        'spans_per_run': round((exporter.spans - exported_before) / (rounds * runs), 1),
    }
