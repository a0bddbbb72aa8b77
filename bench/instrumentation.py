"""S1 with instrumentation: the CPU that tracing and the GenAI metrics add to a worker running the tool loop.

The tool loop (S1) runs in rounds on workers of this process, alternately without instrumentation and with
everything on: `Agent(instrument=...)`, Temporal's tracing interceptor on the client and the worker, and the
run's workflow spans. Spans go through a `BatchSpanProcessor` to an exporter that drops them, and metrics to an
in-memory reader, so the cost measured is producing and processing them, not a network. CPU is this process's
(client and worker; the dev server runs in its own), per run, the median over the rounds. Reported, not asserted
(the target: under 10% more).
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

from agent import InstrumentationSettings
from worker import build_worker
from workflows._tracing import with_tracing

from ._support import Bench, bounded, ms, new_task_queue, run_durable
from .agents import build_agent, tool_loop, tool_loop_output

__all__ = ('s1_instrumentation_cost',)


class _DroppingExporter(SpanExporter):
    """Counts the spans it is given and keeps none."""

    def __init__(self) -> None:
        self.spans = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.spans += len(spans)
        return SpanExportResult.SUCCESS


async def _cpu_per_run(bench: Bench, agent: Any, name: str, *, traced: TracerProvider | None, runs: int) -> float:
    queue, expected = new_task_queue('S1i'), tool_loop_output()
    client = with_tracing(bench.client, traced) if traced is not None else bench.client
    async with build_worker(client, {name: agent}, task_queue=queue):
        for _ in range(2):  # warm-ups
            await run_durable(client, queue, name, 'go', expected)
        cpu = time.process_time()
        await bounded(20, [lambda: run_durable(client, queue, name, 'go', expected)] * runs)
        return (time.process_time() - cpu) / runs


async def s1_instrumentation_cost(bench: Bench) -> dict[str, Any]:
    """Worker CPU per S1 run without and with instrumentation, and the difference in percent."""
    rounds, runs = (2, 20) if bench.quick else (3, 60)
    exporter = _DroppingExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(exporter))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    plain = build_agent('bench_tool_loop_plain', tool_loop)
    traced = build_agent('bench_tool_loop_traced', tool_loop)
    traced.instrument = InstrumentationSettings(tracer_provider=tracer_provider, meter_provider=meter_provider)
    base: list[float] = []
    instrumented: list[float] = []
    for _ in range(rounds):  # alternated, so drift in the machine's load hits both alike
        base.append(await _cpu_per_run(bench, plain, 'bench_tool_loop_plain', traced=None, runs=runs))
        instrumented.append(
            await _cpu_per_run(bench, traced, 'bench_tool_loop_traced', traced=tracer_provider, runs=runs)
        )
    tracer_provider.force_flush()
    tracer_provider.shutdown()
    base_cpu, traced_cpu = statistics.median(base), statistics.median(instrumented)
    return {
        'runs_per_round': runs,
        'rounds': rounds,
        'worker_cpu_ms_per_run': ms(base_cpu),
        'instrumented_worker_cpu_ms_per_run': ms(traced_cpu),
        'instrumentation_cpu_overhead_pct': round((traced_cpu / base_cpu - 1) * 100, 1),
        'spans_per_run': round(exporter.spans / (rounds * (runs + 2)), 1),
    }
