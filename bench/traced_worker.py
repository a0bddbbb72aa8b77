"""The instrumentation scenario's worker process (`python -m bench.traced_worker`): the tool loop, traced or not.

```bash
python -m bench.traced_worker --address localhost:7233 --task-queue q --agent bench_tool_loop_traced --traced
```

With `--traced` the agent is instrumented (`InstrumentationSettings`) and the worker runs Temporal's tracing
interceptor with the run's workflow spans; spans go through a `BatchSpanProcessor` to an exporter that counts and
drops them, metrics to an in-memory reader, so what the process spends is producing and processing them, not a
network. Answers `cpu` (see `bench._worker_process`) and `spans`: the spans exported so far, after a flush.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from agent import InstrumentationSettings
from worker import build_worker, connect, exit_process
from workflows._tracing import with_tracing

from ._worker_process import answer_requests
from .agents import build_agent, tool_loop


class DroppingExporter(SpanExporter):
    """Counts the spans it is given and keeps none."""

    def __init__(self) -> None:
        self.spans = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.spans += len(spans)
        return SpanExportResult.SUCCESS


async def serve(args: argparse.Namespace) -> None:
    client = await connect(args.address, args.namespace)
    agent = build_agent(args.agent, tool_loop)
    exporter = DroppingExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(exporter))
    if args.traced:
        agent.instrument = InstrumentationSettings(
            tracer_provider=tracer_provider, meter_provider=MeterProvider(metric_readers=[InMemoryMetricReader()])
        )
        client = with_tracing(client, tracer_provider)

    async def spans() -> str:
        tracer_provider.force_flush()
        return str(exporter.spans)

    async with build_worker(client, {args.agent: agent}, task_queue=args.task_queue):
        await answer_requests({'spans': spans})
    tracer_provider.shutdown()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--address', required=True, help='Temporal server address')
    parser.add_argument('--namespace', default='default', help='Temporal namespace')
    parser.add_argument('--task-queue', required=True, help='task queue to poll')
    parser.add_argument('--agent', required=True, help="the agent's name (the workflow's agent)")
    parser.add_argument('--traced', action='store_true', help='instrument the agent and trace the worker')
    asyncio.run(serve(parser.parse_args(argv)))
    return 0


if __name__ == '__main__':
    exit_process(main())
