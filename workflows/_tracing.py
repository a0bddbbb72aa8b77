"""One trace per durable run: Temporal's tracing interceptor on the client and the worker.

`AgentTracingInterceptor` is Temporal's `TracingInterceptor` (`temporalio.contrib.opentelemetry`): the client's
calls open spans (`StartWorkflow:AgentWorkflow`, `StartWorkflowUpdate:...`) and put their context in the
workflow's headers; each activity attempt runs in a `RunActivity:...` span parented through the activity's
headers.

Three changes:
- Temporal's `RunWorkflow` span gets a span id derived from the workflow run's id and is made the current span
  for the whole workflow run, replaying or not. The run's `invoke_agent` span (see `workflows._run_spans`) is
  therefore its child on every worker that replays the run.
- Scheduling an activity or starting a child workflow records no span of its own (Temporal's interceptor records a
  zero-length `StartActivity:...` or `StartChildWorkflow:...` span for each, through a call out of the workflow
  sandbox): the headers carry the workflow's current span, so each attempt's `RunActivity` span is a direct child
  of `invoke_agent`. That halves the spans of a tool loop, and the gap between the parent's start and an attempt's
  start still shows the wait; the attempt's `temporalActivityID` tells attempts of one call apart from other calls.
- An attempt's span is offered to the agent's instrumentation (`agent._instrumentation.AdoptableSpan`): an activity
  that is a model request or a tool call of an instrumented agent records one span per attempt, its `chat` or
  `execute_tool` span, carrying Temporal's attributes (`temporalActivityID`, `temporalWorkflowID`, `temporalRunID`)
  with the GenAI ones, where Temporal's interceptor alone would nest a `chat` span in a `RunActivity` one. Other
  activities (and every activity of an agent that is not instrumented) keep their `RunActivity:<type>` span.

The trace reads `StartWorkflow > RunWorkflow > invoke_agent > chat / execute_tool`; a failed run
adds Temporal's `CompleteWorkflow` span with the failure (a completed one needs none: `invoke_agent` ends with it).

A tool that runs another served agent (delegation, see `activities._delegation`) starts a child run, traced under
the `execute_tool` span of the tool round that called `run(...)`, where an in-process run's spans would be:
`execute_tool > RunWorkflow > invoke_agent > ...` (the child's `RunWorkflow`, as every run's, names its workflow).
That span is the tool activity's, and it has ended by the time the workflow starts the child (the round stopped at
the call and handed the run over), so the round returns its context with the request and `started_under` makes it
current while the workflow starts the child. The child outlasts the span it sits under; that is what happened, as
the tool was stopped at that call for the child's whole run, and its next round (a second `execute_tool` span of
the same call id, the child's sibling) goes on with the outcome. Under the parent's `invoke_agent`, with a link to
the tool call, the child would read as one more operation of the step, and only the link would say which call it
belongs to.

Enabled when there is a tracer provider to record with: one given to `with_tracing` (and `build_worker`,
`connect`, `AgentClient`), or a global one set with `opentelemetry.trace.set_tracer_provider`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import opentelemetry.context
from opentelemetry import trace
from opentelemetry.sdk.trace import Tracer as SdkTracer
from opentelemetry.trace import (
    NonRecordingSpan,
    ProxyTracerProvider,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    TracerProvider,
)
from opentelemetry.util.types import AttributeValue
from temporalio import activity, workflow
from temporalio.api.common.v1 import Payload
from temporalio.client import Client
from temporalio.contrib.opentelemetry import TracingInterceptor, TracingWorkflowInboundInterceptor
from temporalio.contrib.opentelemetry._context import attached_context
from temporalio.contrib.opentelemetry._interceptor import (
    _TracingWorkflowOutboundInterceptor,
)
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory
from temporalio.worker import (
    ActivityInboundInterceptor,
    ExecuteActivityInput,
    ExecuteWorkflowInput,
    StartActivityInput,
    StartChildWorkflowInput,
    StartLocalActivityInput,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
    WorkflowOutboundInterceptor,
)

from activities._delegation import TRACE_CONTEXT
from agent._instrumentation import ADOPTABLE_SPAN, AdoptableSpan

from ._run_spans import FixedIds, deterministic_id

__all__ = ('AgentTracingInterceptor', 'configured_tracer_provider', 'has_tracing', 'started_under', 'with_tracing')

TRACER_SCOPE = 'durable-agents.temporal'
"""The instrumentation scope of the interceptor's spans."""

_RUN_WORKFLOW_SPAN = '__durable_agents_run_workflow_span'

_KEPT_ACTIVITY_CONTEXTS = 1024
"""Decoded activity headers a worker keeps (one per run in flight, roughly); all are dropped when it is full."""


def configured_tracer_provider(tracer_provider: TracerProvider | None = None) -> TracerProvider | None:
    """`tracer_provider`, else the global one if it was set, else `None` (nothing would record spans)."""
    if tracer_provider is not None:
        return tracer_provider
    found = trace.get_tracer_provider()
    return None if isinstance(found, ProxyTracerProvider) else found


def has_tracing(interceptors: Any) -> bool:
    """Whether a list of client or worker interceptors already traces (ours or Temporal's own)."""
    return any(isinstance(interceptor, TracingInterceptor) for interceptor in interceptors or ())


def with_tracing(client: Client, tracer_provider: TracerProvider | None = None) -> Client:
    """`client`, or a client on the same connection with `AgentTracingInterceptor` when there is a provider.

    A client that already traces is returned as it is. Workers built on the returned client trace too.
    """
    provider = configured_tracer_provider(tracer_provider)
    config = client.config()
    if provider is None or has_tracing(config['interceptors']):
        return client
    config['interceptors'] = [*config['interceptors'], AgentTracingInterceptor(provider)]
    return Client(**config)


@contextmanager
def started_under(trace_context: Mapping[str, str] | None) -> Iterator[None]:
    """Make the span that `trace_context` carries (`activities._delegation.TRACE_CONTEXT` headers) the workflow's
    current span for the block: a child workflow started in it is that span's child.

    Nothing changes without a context (nothing was traced where it was taken).
    """
    if not trace_context:
        yield
        return
    # Read into the current context: the run's baggage and the interceptor's own entries stay.
    with attached_context(TRACE_CONTEXT.extract(trace_context, opentelemetry.context.get_current())):
        yield


@dataclass(frozen=True)
class _RunWorkflowSpan:
    parent: opentelemetry.context.Context
    name: str
    span_id: int
    attributes: Mapping[str, AttributeValue]
    time_ns: int


class AgentTracingInterceptor(TracingInterceptor):
    """Temporal's tracing interceptor, with a workflow span that stays the parent of the run across replays.

    Args:
        tracer_provider: Where spans go; the global tracer provider when not given.
    """

    def __init__(self, tracer_provider: TracerProvider | None = None) -> None:
        provider = tracer_provider or trace.get_tracer_provider()
        super().__init__(provider.get_tracer(TRACER_SCOPE))
        self.tracer_provider = provider
        self._activity_contexts: dict[bytes, opentelemetry.context.Context | None] = {}

    def workflow_interceptor_class(
        self, input: WorkflowInterceptorClassInput
    ) -> type[TracingWorkflowInboundInterceptor]:
        """The workflow side, with the extern function that records the workflow span outside the sandbox."""
        super().workflow_interceptor_class(input)
        input.unsafe_extern_functions[_RUN_WORKFLOW_SPAN] = self._run_workflow_span
        return _AgentWorkflowTracing

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        """Each attempt in a `RunActivity:<type>` span, its parent read from the activity's headers."""
        return _ActivityTracing(next, self)

    def activity_context(self, header: Payload | None) -> opentelemetry.context.Context | None:
        """The context an activity's tracing header carries (decoded once per distinct header: a run's
        activities all carry the same one)."""
        if header is None:
            return None
        key = header.SerializeToString(deterministic=True)
        if (context := self._activity_contexts.get(key)) is None:
            context = self._context_from_headers({self.header_key: header})
            if len(self._activity_contexts) >= _KEPT_ACTIVITY_CONTEXTS:
                self._activity_contexts.clear()
            self._activity_contexts[key] = context
        return context

    def _run_workflow_span(self, params: _RunWorkflowSpan) -> None:
        tracer = self.tracer
        if not isinstance(tracer, SdkTracer):
            return
        fixed = copy.copy(tracer)
        fixed.id_generator = FixedIds(trace.INVALID_TRACE_ID, params.span_id)
        span = fixed.start_span(
            params.name, params.parent, kind=SpanKind.SERVER, attributes=params.attributes, start_time=params.time_ns
        )
        span.end(end_time=params.time_ns)


class _ActivityTracing(ActivityInboundInterceptor):
    """Temporal's activity span (same name, kind, attributes, error status and exception event), with the parent
    context decoded once per header, offered to the GenAI span the attempt opens (which renames it).

    The span is started and made current in one context switch (Temporal's interceptor nests three context
    managers for it): an activity attempt is the hottest path tracing sits on.
    """

    def __init__(self, next: ActivityInboundInterceptor, root: AgentTracingInterceptor) -> None:
        super().__init__(next)
        self.root = root

    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        root = self.root
        info = activity.info()
        attributes: dict[str, AttributeValue] = {'temporalActivityID': info.activity_id}
        if info.workflow_id:
            attributes['temporalWorkflowID'] = info.workflow_id
        if info.workflow_run_id:
            attributes['temporalRunID'] = info.workflow_run_id
        parent = root.activity_context(input.headers.get(root.header_key))
        span = root.tracer.start_span(
            f'RunActivity:{info.activity_type}', parent, kind=SpanKind.SERVER, attributes=attributes
        )
        offered = AdoptableSpan(span, root.tracer_provider)
        context = opentelemetry.context.set_value(ADOPTABLE_SPAN, offered, trace.set_span_in_context(span, parent))
        token = opentelemetry.context.attach(context)
        try:
            return await self.next.execute_activity(input)
        except Exception as error:
            if span.is_recording():
                if not isinstance(error, ApplicationError) or error.category != ApplicationErrorCategory.BENIGN:
                    span.set_status(Status(StatusCode.ERROR, f'{type(error).__name__}: {error}'))
                span.record_exception(error)
            raise
        finally:
            opentelemetry.context.detach(token)
            span.end()


class _ActivityContextOutbound(_TracingWorkflowOutboundInterceptor):
    """Temporal's workflow outbound tracing, except that activities and child workflows get the current context
    without a span.

    A run schedules all its activities under one context (its `invoke_agent` span), so the header made for it is
    kept and reused while that context stays current: encoding it is JSON through the payload converter, inside
    the sandbox, where every `isinstance` is a chain of Python calls.
    """

    def __init__(self, next: WorkflowOutboundInterceptor, root: TracingWorkflowInboundInterceptor) -> None:
        super().__init__(next, root)
        self._kept: tuple[opentelemetry.context.Context | None, Payload | None] = (None, None)

    def start_activity(self, input: StartActivityInput) -> workflow.ActivityHandle[Any]:
        self._add_context(input)
        return self.next.start_activity(input)

    def start_local_activity(self, input: StartLocalActivityInput) -> workflow.ActivityHandle[Any]:
        self._add_context(input)
        return self.next.start_local_activity(input)

    async def start_child_workflow(self, input: StartChildWorkflowInput) -> workflow.ChildWorkflowHandle[Any, Any]:
        if not workflow.unsafe.is_replaying():
            # Not the kept header: a child is started under a span of its own (`started_under`), once.
            input.headers = self.root._context_to_headers(input.headers)
        return await self.next.start_child_workflow(input)

    def _add_context(self, input: StartActivityInput | StartLocalActivityInput) -> None:
        if workflow.unsafe.is_replaying():  # a replayed command is never sent: its headers go nowhere
            return
        # Contexts are immutable mappings, and the run's nodes each make the run span current again in a new but
        # equal one (the same span object): equal contexts give the same carrier.
        current = opentelemetry.context.get_current()
        kept_context, header = self._kept
        if current != kept_context:
            header = self.root._context_to_headers({}).get(self.root.header_key)
            self._kept = (current, header)
        if header is not None:
            input.headers = {**input.headers, self.root.header_key: header}


class _AgentWorkflowTracing(TracingWorkflowInboundInterceptor):
    def init(self, outbound: WorkflowOutboundInterceptor) -> None:
        WorkflowInboundInterceptor.init(self, _ActivityContextOutbound(outbound, self))

    async def execute_workflow(self, input: ExecuteWorkflowInput) -> Any:
        # A run that completes records no `CompleteWorkflow` span (its `invoke_agent` span ends as it does); one that
        # fails still records it, with the failure.
        with self._top_level_workflow_context(success_is_complete=False):
            parent = trace.get_current_span().get_span_context()
            if not parent.is_valid:
                # Started without a traced client (the CLI, a schedule): no workflow span; the run's span is a root.
                return await self.next.execute_workflow(input)
            info = workflow.info()
            span_id = deterministic_id(64, 'RunWorkflow', info.run_id)
            if not workflow.unsafe.is_replaying_history_events():
                record: Callable[[_RunWorkflowSpan], None] = workflow.extern_functions()[_RUN_WORKFLOW_SPAN]
                record(
                    _RunWorkflowSpan(
                        opentelemetry.context.get_current(),  # the client's span, and any baggage it sent
                        f'RunWorkflow:{info.workflow_type}',
                        span_id,
                        {'temporalWorkflowID': info.workflow_id, 'temporalRunID': info.run_id},
                        workflow.time_ns(),
                    )
                )
            here = SpanContext(parent.trace_id, span_id, is_remote=False, trace_flags=parent.trace_flags)
            context = trace.set_span_in_context(NonRecordingSpan(here), opentelemetry.context.get_current())
            with attached_context(context):
                return await self.next.execute_workflow(input)
