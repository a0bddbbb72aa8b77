"""An instrumented agent for the tracing tests' worker subprocesses: spans go to a JSON-lines file.

Importing this module (as `worker.py --agents tests.durable.tracing_worker:traced_crash_agent` does) installs a
global tracer provider that writes every finished span to `$TRACE_FILE` at once, so a worker killed with SIGKILL
has written all the spans it ended.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

from agent import Agent
from agent.models.function import FunctionModel

from .crash_agent import _respond, quick_step, slow_step


class JsonLinesExporter(SpanExporter):
    """Appends each span, as OpenTelemetry's JSON, on a line of its own."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with self.path.open('a') as out:
            for span in spans:
                out.write(json.dumps(json.loads(span.to_json())) + '\n')
        return SpanExportResult.SUCCESS


if trace_file := os.environ.get('TRACE_FILE'):
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(JsonLinesExporter(Path(trace_file))))
    trace.set_tracer_provider(provider)

traced_crash_agent = Agent(FunctionModel(_respond), name='traced_crash_agent', instrument=True)
traced_crash_agent.tool(quick_step)
traced_crash_agent.tool(slow_step)
