"""Spans opened by workflow code, recorded exactly once although the workflow replays.

A durable run's workflow code runs again from the start whenever a worker has to rebuild it: after a restart,
a crash, a cache eviction, or in the next workflow run after continue-as-new. The `Instrumentation` capability's
run-level hooks run there (`invoke_agent`, and `execute_tool` around output functions), so a plain tracer
would emit those spans again on every replay, each time with new ids. Model requests and tool calls are no
concern: their hooks run inside the activities (`chat`, `execute_tool`), which run once per attempt.

The workflow therefore records its spans through `WorkflowTracer`, a wrapper of the agent's SDK tracer that
`WorkflowPorts.instrumentation` hands to the capability (the `RunPorts.instrumentation` seam), and which:

- gives every span an id that is the same on every replay: the run span's from the agent run's id (so it stays
  the same across continue-as-new, which keeps the run id), the others from the run id, the workflow run's id
  and their position; with no parent (a run started without a traced client) the trace id comes from the run
  id too. Activities scheduled while a span is current carry its id in their headers (Temporal's tracing
  interceptor), so model and tool spans find their parent even when it is started again by another worker;
- stamps starts and ends with the workflow's clock (deterministic on replay), the run span's start with the
  run's own start, read from its UUIDv7 run id (so a run resumed after continue-as-new keeps its start);
- ends (exports) a span only when the end happens live, never while replaying history. A span that started
  while replaying and ends live is therefore exported once, by the worker that saw the end, with the original
  ids and times; a span that started and ended in history was exported when that happened first.

Not exported at all: the run span when a run continues as new mid-turn (the next workflow run ends it) and spans
left open when a worker drops the run from its cache (they are started again by the worker that replays it).
One gap remains: if a worker dies after a span ended but before its workflow task completed, the task runs
again live and the span is exported twice, with the same ids (backends merge or show both).
"""

from __future__ import annotations

import copy
import hashlib
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import Tracer as SdkTracer
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import Link, Span, SpanContext, SpanKind, Status, StatusCode, Tracer, use_span
from opentelemetry.util import types
from opentelemetry.util._decorator import _agnosticcontextmanager
from temporalio import workflow

from agent._instrumentation import InstrumentationSettings

__all__ = ('FixedIds', 'SpanGate', 'WorkflowTracer', 'deterministic_id', 'durable_settings')

_INVALID = {trace.INVALID_SPAN_ID, trace.INVALID_TRACE_ID}


def deterministic_id(bits: int, *parts: str) -> int:
    """A non-zero `bits`-bit id derived from `parts` alone."""
    digest = hashlib.blake2b('\x1f'.join(parts).encode(), digest_size=bits // 8).digest()
    value = int.from_bytes(digest, 'big')
    return value if value not in _INVALID else 1


class SpanGate:
    """Whether spans that end now may be exported; closed when the workflow run continues as new mid-turn."""

    def __init__(self) -> None:
        self.open = True

    def close(self) -> None:
        """Export nothing more from this workflow run (what is still open goes on in the next one)."""
        self.open = False


class FixedIds(IdGenerator):
    """Hands out the one span id (and trace id, for a root) chosen for the span being started."""

    def __init__(self, trace_id: int, span_id: int) -> None:
        self._trace_id, self._span_id = trace_id, span_id

    def generate_span_id(self) -> int:
        return self._span_id

    def generate_trace_id(self) -> int:
        return self._trace_id


def _replaying() -> bool:
    try:
        return workflow.unsafe.is_replaying_history_events()
    except Exception:  # outside the workflow's event loop: a run being dropped from the cache
        return True


def _now_ns() -> int:
    return workflow.time_ns()


def _uuid7_start_ns(run_id: str) -> int | None:
    """When a UUIDv7 run id was stamped (the run's start, by the workflow clock), in nanoseconds."""
    try:
        parsed = uuid.UUID(run_id)
    except ValueError:
        return None
    if parsed.version != 7:
        return None
    return (parsed.int >> 80) * 1_000_000


class _OnceSpan(Span):
    """A span that is exported only if it ends live (see the module docstring)."""

    def __init__(self, span: Span, gate: SpanGate) -> None:
        self._span = span
        self._gate = gate
        self._error: BaseException | None = None

    def end(self, end_time: int | None = None) -> None:
        if isinstance(self._error, GeneratorExit) or not self._gate.open or _replaying():
            return
        self._span.end(end_time if end_time is not None else _now_ns())

    def get_span_context(self) -> SpanContext:
        return self._span.get_span_context()

    def set_attributes(self, attributes: Mapping[str, types.AttributeValue]) -> None:
        self._span.set_attributes(attributes)

    def set_attribute(self, key: str, value: types.AttributeValue) -> None:
        self._span.set_attribute(key, value)

    def add_event(self, name: str, attributes: types.Attributes = None, timestamp: int | None = None) -> None:
        self._span.add_event(name, attributes, timestamp if timestamp is not None else _now_ns())

    def add_link(self, context: SpanContext, attributes: types.Attributes = None) -> None:
        self._span.add_link(context, attributes)

    def update_name(self, name: str) -> None:
        self._span.update_name(name)

    def is_recording(self) -> bool:
        return self._span.is_recording()

    def set_status(self, status: Status | StatusCode, description: str | None = None) -> None:
        self._span.set_status(status, description)

    def record_exception(
        self,
        exception: BaseException,
        attributes: types.Attributes = None,
        timestamp: int | None = None,
        escaped: bool = False,
    ) -> None:
        self._error = exception
        if not isinstance(exception, GeneratorExit):
            self._span.record_exception(exception, attributes, timestamp or _now_ns(), escaped)


class WorkflowTracer(Tracer):
    """A tracer for workflow code: deterministic ids and times, each span exported once (see the module docstring).

    Args:
        tracer: The OpenTelemetry SDK tracer the spans go to (a copy of it starts each span, with the span's id).
        run_id: The agent run's id.
        gate: Closed when the workflow run continues as new mid-turn.
    """

    def __init__(self, tracer: SdkTracer, run_id: str, gate: SpanGate) -> None:
        self._tracer = tracer
        self._run_id = run_id
        self._gate = gate
        self._started = 0
        self._trace_id = deterministic_id(128, 'trace', run_id)

    def _ids(self, attributes: types.Attributes) -> tuple[int, int, bool]:
        """The trace id (used for a root only), the span id, and whether this is the run's own span."""
        if attributes and attributes.get('gen_ai.operation.name') == 'invoke_agent':
            return self._trace_id, deterministic_id(64, 'invoke_agent', self._run_id), True
        self._started += 1
        span_id = deterministic_id(64, 'span', self._run_id, workflow.info().run_id, str(self._started))
        return self._trace_id, span_id, False

    def start_span(
        self,
        name: str,
        context: Context | None = None,
        kind: SpanKind = SpanKind.INTERNAL,
        attributes: types.Attributes = None,
        links: Sequence[Link] | None = None,
        start_time: int | None = None,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
    ) -> Span:
        """Start a span with this run's deterministic ids, at the workflow's time (the run's start for its span)."""
        trace_id, span_id, is_run = self._ids(attributes)
        if start_time is None:
            start_time = (_uuid7_start_ns(self._run_id) if is_run else None) or _now_ns()
        # The SDK tracer draws ids from its generator: a copy of it with this span's ids starts the span, sharing
        # the provider's sampler, resource, limits and processors.
        tracer = copy.copy(self._tracer)
        tracer.id_generator = FixedIds(trace_id, span_id)
        span = tracer.start_span(
            name, context, kind, attributes, links, start_time, record_exception, set_status_on_exception
        )
        return _OnceSpan(span, self._gate)

    @_agnosticcontextmanager
    def start_as_current_span(
        self,
        name: str,
        context: Context | None = None,
        kind: SpanKind = SpanKind.INTERNAL,
        attributes: types.Attributes = None,
        links: Sequence[Link] | None = None,
        start_time: int | None = None,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
        end_on_exit: bool = True,
    ) -> Iterator[Span]:
        """Start a span as `start_span` does and make it current for the block."""
        span = self.start_span(
            name, context, kind, attributes, links, start_time, record_exception, set_status_on_exception
        )
        with use_span(
            span,
            end_on_exit=end_on_exit,
            record_exception=record_exception,
            set_status_on_exception=set_status_on_exception,
        ) as current:
            yield current


def _sdk_tracer(tracer: Tracer) -> SdkTracer | None:
    if isinstance(tracer, SdkTracer):
        return tracer
    # A proxy from the global provider, created before the SDK provider was installed: what it stands for now.
    resolved: Any = getattr(tracer, '_tracer', None)
    return resolved if isinstance(resolved, SdkTracer) else None


def durable_settings(settings: InstrumentationSettings, run_id: str, gate: SpanGate) -> InstrumentationSettings:
    """`settings` with a `WorkflowTracer` over its tracer, for the workflow code of the run `run_id`.

    Without an OpenTelemetry SDK tracer (the API's no-op one, say), there is nothing to record: the run's workflow
    spans are started on a non-recording tracer.
    """
    sdk_tracer = _sdk_tracer(settings.tracer)
    durable = copy.copy(settings)
    durable.tracer = WorkflowTracer(sdk_tracer, run_id, gate) if sdk_tracer is not None else trace.NoOpTracer()
    return durable
