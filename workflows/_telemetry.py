"""Telemetry by convention: OpenTelemetry from the standard `OTEL_*` variables, Temporal's metrics on Prometheus.

`python worker.py` calls `configure_from_env()` first: when `OTEL_EXPORTER_OTLP_ENDPOINT` (or its traces or
metrics variant) or `OTEL_TRACES_EXPORTER` is set, it installs global tracer and meter providers that export
over OTLP/HTTP (the `otlp` extra: `pip install 'durable-agents[otlp]'`), or to the console with
`OTEL_TRACES_EXPORTER=console`. The exporter reads its endpoint, headers, timeout and compression from the
same variables; `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` name the resource. With a global tracer
provider in place, workers and clients trace (see `workflows._tracing`) and instrumented agents' runs record
their spans and GenAI metrics there.

Temporal's own worker metrics (task latencies, slots, polls, activity and workflow outcomes, all named
`temporal_*`) come from the SDK's core runtime, which is chosen when a client connects:
`runtime_with_prometheus(address)` gives a runtime serving them at `http://<address>/metrics`.
"""

from __future__ import annotations

import os
from functools import cache

from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import ConsoleMetricExporter, MetricExporter, PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter
from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig

from agent.exceptions import UserError

__all__ = ('configure_from_env', 'runtime_with_prometheus', 'telemetry_requested')

_ENDPOINTS = (
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
)
_OTLP_MISSING = (
    'OTEL_* variables ask for OTLP export, but the exporter is not installed: '
    "pip install 'durable-agents[otlp]' (or unset OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_TRACES_EXPORTER)."
)


def telemetry_requested(environ: dict[str, str] | None = None) -> bool:
    """Whether the environment asks for OpenTelemetry export (and the SDK is not disabled)."""
    env = os.environ if environ is None else environ
    if env.get('OTEL_SDK_DISABLED', '').strip().lower() == 'true':
        return False
    return any(env.get(name) for name in (*_ENDPOINTS, 'OTEL_TRACES_EXPORTER'))


def _exporter_names(variable: str, environ: dict[str, str]) -> list[str]:
    names = [name.strip().lower() for name in environ.get(variable, 'otlp').split(',') if name.strip()]
    return [name for name in names if name != 'none']


def _span_exporter(name: str) -> SpanExporter:
    if name == 'console':
        return ConsoleSpanExporter()
    if name == 'otlp':
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError as exc:
            raise UserError(_OTLP_MISSING) from exc
        return OTLPSpanExporter()
    raise UserError(f"OTEL_TRACES_EXPORTER={name!r} is not supported here: use 'otlp', 'console' or 'none'.")


def _metric_exporter(name: str) -> MetricExporter:
    if name == 'console':
        return ConsoleMetricExporter()
    if name == 'otlp':
        try:
            from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        except ImportError as exc:
            raise UserError(_OTLP_MISSING) from exc
        return OTLPMetricExporter()
    raise UserError(f"OTEL_METRICS_EXPORTER={name!r} is not supported here: use 'otlp', 'console' or 'none'.")


def configure_from_env(environ: dict[str, str] | None = None) -> TracerProvider | None:
    """Install global tracer and meter providers as the `OTEL_*` variables say; the tracer provider, or `None`.

    Does nothing (and returns `None`) unless `telemetry_requested()`.

    Raises:
        UserError: when OTLP export is asked for without the `otlp` extra, or for an unknown exporter name.
    """
    env = dict(os.environ if environ is None else environ)
    if not telemetry_requested(env):
        return None
    resource = Resource.create()  # reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
    tracer_provider = TracerProvider(resource=resource)
    for name in _exporter_names('OTEL_TRACES_EXPORTER', env):
        tracer_provider.add_span_processor(BatchSpanProcessor(_span_exporter(name)))
    metric_exporters = [_metric_exporter(name) for name in _exporter_names('OTEL_METRICS_EXPORTER', env)]
    readers = [PeriodicExportingMetricReader(exporter) for exporter in metric_exporters]
    trace.set_tracer_provider(tracer_provider)
    metrics.set_meter_provider(MeterProvider(resource=resource, metric_readers=readers))
    return tracer_provider


@cache
def runtime_with_prometheus(address: str) -> Runtime:
    """A Temporal runtime serving its worker and client metrics for Prometheus at `address` (`host:port`).

    One per address and process: the runtime owns the listening socket.
    """
    return Runtime(telemetry=TelemetryConfig(metrics=PrometheusConfig(bind_address=address)))
