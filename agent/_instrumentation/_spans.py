"""The three spans of an agent run, as context managers that any caller can open around the operation.

`agent_run_span` (`invoke_agent <agent>`), `model_request_span` (`chat <model>`, with the GenAI client
metrics) and `tool_call_span` (`execute_tool <tool>`) take plain values, not a run, so the `Instrumentation`
capability, `InstrumentedModel` and code running a model request or tool call somewhere else (a durable
activity) all emit the same spans with the same attributes. Each yields a small recorder whose `finish(...)`
adds what is known only once the operation succeeded; a failure marks the span as an error with an
`exception` event, except the deferrals (`ApprovalRequired`, `CallDeferred`) and a tool's run handed elsewhere
(`RunHandedOff`), which are control flow.

Durations come from `now_utc()` (the runtime's one clock, see `agent._env`) and span timestamps from
OpenTelemetry itself.

Where the operation already has a span of its own (a durable activity's attempt, opened by the worker's tracing
interceptor and offered in the context as an `AdoptableSpan`), the first of these spans opened with the same tracer
provider takes that span over instead of opening a child: it renames it and adds its attributes, and whoever opened
it ends it. An activity that is one model request or one tool call then records one span, not two.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from opentelemetry.context import Context, create_key, get_value
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, TracerProvider, get_current_span
from opentelemetry.util.types import AttributeValue

from agent._delegation import RunHandedOff
from agent._env import now_utc
from agent._parts import ModelResponse
from agent.exceptions import ApprovalRequired, CallDeferred

from ._messages import input_messages, output_message, redact_binary, system_instructions, to_json_str

if TYPE_CHECKING:
    from agent._model_request_context import ModelRequestContext
    from agent.models import Model, ModelRequestParameters
    from agent.settings import ModelSettings
    from agent.usage import RequestUsage, RunUsage

    from ._settings import InstrumentationSettings

__all__ = (
    'ADOPTABLE_SPAN',
    'AdoptableSpan',
    'AgentRunSpan',
    'ModelRequestSpan',
    'ToolCallSpan',
    'agent_run_span',
    'model_attributes',
    'model_request_span',
    'tool_call_span',
    'usage_attributes',
)

# The request settings the conventions name, each recorded as `gen_ai.request.<name>`.
_REQUEST_SETTINGS = ('max_tokens', 'temperature', 'top_p', 'top_k', 'seed', 'presence_penalty', 'frequency_penalty')


def usage_attributes(usage: RequestUsage | RunUsage, prefix: str = 'gen_ai.usage') -> dict[str, AttributeValue]:
    """Token counts as `<prefix>.input_tokens`, `<prefix>.output_tokens` and the cache counts (zeros left out)."""
    counts = {
        'input_tokens': usage.input_tokens,
        'output_tokens': usage.output_tokens,
        'cache_read.input_tokens': usage.cache_read_tokens,
        'cache_creation.input_tokens': usage.cache_write_tokens,
        'reasoning.output_tokens': usage.reasoning_tokens,
    }
    return {f'{prefix}.{name}': value for name, value in counts.items() if value}


def model_attributes(model: Model) -> dict[str, AttributeValue]:
    """The provider, requested model and server of a model, as span and metric attributes."""
    return dict(_model_attribute_items(model.system, model.model_name, model.base_url))


# A worker sends every request of a model with the same few values: they are worked out once per model, not
# once per request (a model request is the hottest path instrumentation sits on).
@lru_cache(maxsize=256)
def _model_attribute_items(
    system: str, model_name: str, base_url: str | None
) -> tuple[tuple[str, AttributeValue], ...]:
    items: list[tuple[str, AttributeValue]] = [
        ('gen_ai.provider.name', system),
        ('gen_ai.system', system),  # the older name, still read by many backends
        ('gen_ai.request.model', model_name),
    ]
    if base_url:
        try:
            parsed = urlparse(base_url)
            host, port = parsed.hostname, parsed.port
        except ValueError:  # a malformed URL only loses the server attributes
            host, port = None, None
        if host:
            items.append(('server.address', host))
        if port:
            items.append(('server.port', port))
    return tuple(items)


def _settings_attributes(settings: ModelSettings | None) -> dict[str, AttributeValue]:
    attributes: dict[str, AttributeValue] = {}
    values: Mapping[str, Any] = settings or {}
    for name in _REQUEST_SETTINGS:
        value = values.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            attributes[f'gen_ai.request.{name}'] = value
    stop = values.get('stop_sequences')
    if isinstance(stop, list | tuple) and stop:
        attributes['gen_ai.request.stop_sequences'] = [str(s) for s in stop]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    return attributes


def _record_failure(span: Span, error: BaseException, *, record_exception: bool = True) -> None:
    if isinstance(error, ApprovalRequired | CallDeferred | RunHandedOff):
        # A deferral waits for a human or another system, a handed-off run goes on elsewhere (the tool runs again
        # with its outcome): the span ends without an error.
        return
    if record_exception:
        span.record_exception(error, escaped=True)
    span.set_status(Status(StatusCode.ERROR, f'{type(error).__name__}: {error}'))


ADOPTABLE_SPAN = create_key('agent_adoptable_span')
"""The context key under which an `AdoptableSpan` is offered."""


class AdoptableSpan:
    """A span opened around one operation, for the first GenAI span opened inside it to become.

    Args:
        span: The span, current while the operation runs; its opener ends it (and records an exception that
            escapes it).
        tracer_provider: The provider it was started with: only settings recording to the same provider adopt it.
    """

    __slots__ = ('span', 'taken', 'tracer_provider')

    def __init__(self, span: Span, tracer_provider: TracerProvider) -> None:
        self.span = span
        self.tracer_provider = tracer_provider
        self.taken = False

    def take(self, settings: InstrumentationSettings, context: Context | None = None) -> Span | None:
        """The span, the first time settings of the same provider ask while it is still the current span of
        `context` (the current context when not given); `None` after that, for another provider, or under a span
        opened inside it (whose child a GenAI span is)."""
        if self.taken or settings.tracer_provider is not self.tracer_provider:
            return None
        if get_current_span(context) is not self.span:
            return None
        self.taken = True
        return self.span


def _error_type(error: BaseException) -> str:
    kind = type(error)
    return kind.__qualname__ if kind.__module__ == 'builtins' else f'{kind.__module__}.{kind.__qualname__}'


@contextmanager
def _span(
    settings: InstrumentationSettings,
    name: str,
    attributes: dict[str, AttributeValue],
    *,
    kind: SpanKind = SpanKind.INTERNAL,
    context: Context | None = None,
) -> Generator[Span]:
    offered = get_value(ADOPTABLE_SPAN, context)
    adopted = offered.take(settings, context) if isinstance(offered, AdoptableSpan) else None
    if adopted is not None:
        # Already the current span of `context`: renamed and described, not switched to.
        adopted.update_name(name)
        adopted.set_attributes(attributes)
        try:
            yield adopted
        except BaseException as error:
            _record_failure(adopted, error, record_exception=False)  # its opener records the exception
            raise
        return
    with settings.tracer.start_as_current_span(
        name, context=context, kind=kind, attributes=attributes, record_exception=False, set_status_on_exception=False
    ) as span:
        try:
            yield span
        except BaseException as error:
            _record_failure(span, error)
            raise


# ----- the agent run -----


@dataclass
class AgentRunSpan:
    """The recorder of an `invoke_agent` span."""

    span: Span
    """The span itself (e.g. to make it the parent of spans started in other tasks)."""
    settings: InstrumentationSettings = field(repr=False)

    def finish(self, *, output: Any, usage: RunUsage) -> None:
        """Record the run's usage and, with `include_content`, its output."""
        if not self.span.is_recording():
            return
        prefix = 'gen_ai.aggregated_usage' if self.settings.use_aggregated_usage_attribute_names else 'gen_ai.usage'
        self.span.set_attributes(usage_attributes(usage, prefix))
        if self.settings.include_content:
            value = output if isinstance(output, str) else to_json_str(redact_binary(output, self.settings))
            self.span.set_attribute('final_result', value)


@contextmanager
def agent_run_span(
    settings: InstrumentationSettings,
    *,
    agent_name: str,
    run_id: str | None = None,
    conversation_id: str | None = None,
    model: Model | None = None,
    description: str | None = None,
    context: Context | None = None,
) -> Generator[AgentRunSpan]:
    """Open the `invoke_agent <agent_name>` span of a run; call `finish` on the result before leaving."""
    attributes: dict[str, AttributeValue] = {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': agent_name,
    }
    if run_id:
        attributes['gen_ai.agent.call.id'] = run_id
    if conversation_id:
        attributes['gen_ai.conversation.id'] = conversation_id
    if description:
        attributes['gen_ai.agent.description'] = description
    if model is not None:
        attributes['model_name'] = model.model_name
    with _span(settings, f'invoke_agent {agent_name}', attributes, context=context) as span:
        yield AgentRunSpan(span, settings)


# ----- model requests -----


@dataclass
class ModelRequestSpan:
    """The recorder of a `chat` span; it also records the request's metrics when the span ends."""

    span: Span
    """The span itself."""
    settings: InstrumentationSettings = field(repr=False)
    request_context: ModelRequestContext = field(repr=False)
    metric_attributes: dict[str, AttributeValue] = field(repr=False)
    response: ModelResponse | None = None
    """The response, once `finish` was called."""

    def finish(self, response: ModelResponse) -> None:
        """Record what the response says: model, id, finish reason, usage and, with `include_content`, messages."""
        self.response = response
        model_name = self.request_context.model.model_name
        response_model = response.model_name or model_name
        self.metric_attributes['gen_ai.response.model'] = response_model
        span = self.span
        if not span.is_recording():
            return
        attributes: dict[str, AttributeValue] = {
            'gen_ai.response.model': response_model,
            **usage_attributes(response.usage),
        }
        if response.provider_response_id:
            attributes['gen_ai.response.id'] = response.provider_response_id
        if response.finish_reason is not None:
            attributes['gen_ai.response.finish_reasons'] = [response.finish_reason]
        if self.settings.include_content:
            messages = self.request_context.messages
            attributes['gen_ai.input.messages'] = to_json_str(input_messages(messages, self.settings))
            attributes['gen_ai.output.messages'] = to_json_str([output_message(response, self.settings)])
            if (instructions := system_instructions(messages)) is not None:
                attributes['gen_ai.system_instructions'] = to_json_str(instructions)
        span.set_attributes(attributes)

    def record_metrics(self, seconds: float, error: BaseException | None) -> None:
        """Record the operation's duration and, after a response, its input and output tokens."""
        attributes = dict(self.metric_attributes)
        if error is not None:
            attributes['error.type'] = _error_type(error)
        self.settings.duration_histogram.record(seconds, attributes)
        if self.response is None:
            return
        for token_type, count in (
            ('input', self.response.usage.input_tokens),
            ('output', self.response.usage.output_tokens),
        ):
            if count:
                self.settings.tokens_histogram.record(
                    count, {**self.metric_attributes, 'gen_ai.token.type': token_type}
                )


def _tool_definitions(params: ModelRequestParameters) -> list[dict[str, Any]]:
    definitions: list[dict[str, Any]] = []
    for tool in [*params.function_tools, *params.output_tools]:
        definition: dict[str, Any] = {'type': 'function', 'name': tool.name}
        if tool.description:
            definition['description'] = tool.description
        definition['parameters'] = tool.parameters_json_schema
        definitions.append(definition)
    return definitions


class _ParameterAttributes:
    """The JSON attributes of a request's parameters, kept for the parameters object last seen.

    A run's requests (and a durable worker's, which keeps parameters it was sent) usually share one parameters
    object, and serializing tool schemas on every request is most of what a `chat` span costs.
    """

    def __init__(self) -> None:
        self._kept: tuple[ModelRequestParameters | None, tuple[object, ...], dict[str, AttributeValue]] = (None, (), {})

    def __call__(self, params: ModelRequestParameters, include_parameters: bool) -> dict[str, AttributeValue]:
        # The object (held, so its id is not reused) and its tool lists by identity: parameters are replaced, not
        # edited, but a list could be.
        key = (include_parameters, *map(id, params.function_tools), None, *map(id, params.output_tools))
        kept_params, kept_key, attributes = self._kept
        if kept_params is params and kept_key == key:
            return attributes
        attributes: dict[str, AttributeValue] = {}
        if definitions := _tool_definitions(params):
            attributes['gen_ai.tool.definitions'] = to_json_str(definitions)
        if include_parameters:
            attributes['model_request_parameters'] = to_json_str(params)
        self._kept = (params, key, attributes)
        return attributes


_parameter_attributes = _ParameterAttributes()


@contextmanager
def model_request_span(
    settings: InstrumentationSettings,
    request_context: ModelRequestContext,
    *,
    attributes: Mapping[str, AttributeValue] | None = None,
    context: Context | None = None,
) -> Generator[ModelRequestSpan]:
    """Open the `chat <model>` span of one model request; call `finish` with the response before leaving.

    When the block ends (with or without a response) the `gen_ai.client.operation.duration` metric is
    recorded, and after a response the `gen_ai.client.token.usage` metric for input and output tokens.

    Args:
        settings: The instrumentation settings.
        request_context: The request about to be sent.
        attributes: More attributes for the span (e.g. the agent's name and run id).
        context: The parent context; the current one when not given.
    """
    model = request_context.model
    base: dict[str, AttributeValue] = {'gen_ai.operation.name': 'chat'}
    base.update(_model_attribute_items(model.system, model.model_name, model.base_url))
    span_attributes: dict[str, AttributeValue] = {
        **base,
        **(attributes or {}),
        **_settings_attributes(request_context.model_settings),
    }
    span_attributes.update(
        _parameter_attributes(request_context.model_request_parameters, settings.include_model_request_parameters)
    )
    metric_attributes = {key: value for key, value in base.items() if key != 'gen_ai.system'}
    started = now_utc()
    error: BaseException | None = None
    recorder: ModelRequestSpan | None = None
    try:
        with _span(
            settings, f'chat {model.model_name}', span_attributes, kind=SpanKind.CLIENT, context=context
        ) as span:
            recorder = ModelRequestSpan(span, settings, request_context, metric_attributes)
            yield recorder
    except BaseException as exc:
        error = exc
        raise
    finally:
        # Metrics are recorded after the span has ended, so both describe the same finished operation.
        if recorder is not None:
            recorder.record_metrics((now_utc() - started).total_seconds(), error)


# ----- tool calls -----


@dataclass
class ToolCallSpan:
    """The recorder of an `execute_tool` span."""

    span: Span
    """The span itself."""
    settings: InstrumentationSettings = field(repr=False)

    def finish(self, result: Any) -> None:
        """Record the tool's result (with `include_content`)."""
        if self.settings.include_content and self.span.is_recording():
            value = result if isinstance(result, str) else to_json_str(redact_binary(result, self.settings))
            self.span.set_attribute('gen_ai.tool.call.result', value)


@contextmanager
def tool_call_span(
    settings: InstrumentationSettings,
    *,
    tool_name: str,
    tool_call_id: str | None,
    arguments: str | None,
    attributes: Mapping[str, AttributeValue] | None = None,
    context: Context | None = None,
) -> Generator[ToolCallSpan]:
    """Open the `execute_tool <tool_name>` span of one tool call; call `finish` with the result before leaving.

    Args:
        settings: The instrumentation settings.
        tool_name: The tool (or output function) that runs.
        tool_call_id: The id of the model's call, if the model called it.
        arguments: The arguments as JSON, recorded with `include_content`.
        attributes: More attributes for the span (e.g. the agent's name and run id).
        context: The parent context; the current one when not given.
    """
    span_attributes: dict[str, AttributeValue] = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': tool_name,
        'gen_ai.tool.type': 'function',
        **(attributes or {}),
    }
    if tool_call_id:
        span_attributes['gen_ai.tool.call.id'] = tool_call_id
    if settings.include_content and arguments is not None:
        span_attributes['gen_ai.tool.call.arguments'] = arguments
    with _span(settings, f'execute_tool {tool_name}', span_attributes, context=context) as span:
        yield ToolCallSpan(span, settings)
