"""Private OpenTelemetry providers with in-memory exporters, and helpers to read what they caught."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import HistogramDataPoint, InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agent import InstrumentationSettings


@dataclass
class Telemetry:
    """A tracer provider and a meter provider whose spans and metrics stay in memory."""

    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader
    tracer_provider: TracerProvider
    meter_provider: MeterProvider

    @classmethod
    def create(cls) -> Telemetry:
        exporter = InMemorySpanExporter()
        tracer_provider = TracerProvider()
        tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
        reader = InMemoryMetricReader()
        return cls(exporter, reader, tracer_provider, MeterProvider(metric_readers=[reader]))

    def settings(self, **kwargs: Any) -> InstrumentationSettings:
        return InstrumentationSettings(
            tracer_provider=self.tracer_provider, meter_provider=self.meter_provider, **kwargs
        )

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def span(self, name: str) -> ReadableSpan:
        matches = [span for span in self.spans() if span.name == name]
        assert len(matches) == 1, f'expected one {name!r} span, got {[s.name for s in self.spans()]}'
        return matches[0]

    def tree(self) -> list[tuple[str, str | None]]:
        """Each span's name with its parent's name, in start order."""
        spans = sorted(self.spans(), key=lambda s: s.start_time or 0)
        by_id = {s.context.span_id: s.name for s in spans if s.context is not None}
        return [(s.name, by_id.get(s.parent.span_id) if s.parent else None) for s in spans]

    def points(self, metric: str) -> list[HistogramDataPoint]:
        data = self.reader.get_metrics_data()
        found: list[HistogramDataPoint] = []
        for resource in data.resource_metrics if data else []:
            for scope in resource.scope_metrics:
                for m in scope.metrics:
                    if m.name == metric:
                        found.extend(p for p in m.data.data_points if isinstance(p, HistogramDataPoint))
        return found


def attrs(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def json_attr(span: ReadableSpan, key: str) -> Any:
    value = attrs(span)[key]
    assert isinstance(value, str)
    return json.loads(value)


def content_keys(spans: Sequence[ReadableSpan]) -> set[str]:
    """The content-bearing attributes present on any of `spans`."""
    content = {
        'gen_ai.input.messages',
        'gen_ai.output.messages',
        'gen_ai.system_instructions',
        'gen_ai.tool.call.arguments',
        'gen_ai.tool.call.result',
        'final_result',
    }
    return {key for span in spans for key in attrs(span) if key in content}
