"""`InstrumentationSettings`: where spans and metrics go, and how much of a run they may record."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from opentelemetry.metrics import Histogram, Meter, MeterProvider, get_meter_provider
from opentelemetry.trace import Tracer, TracerProvider, get_tracer_provider

from agent.exceptions import UserError

__all__ = ('DEFAULT_INSTRUMENTATION_VERSION', 'SCOPE_NAME', 'InstrumentationSettings')

DEFAULT_INSTRUMENTATION_VERSION = 5
"""The attribute layout emitted unless another `version` is asked for."""

SCOPE_NAME = 'durable-agents'
"""The instrumentation scope of every tracer and meter this runtime creates."""

_SCOPE_VERSION = '0.1.0'

# The bucket boundaries the GenAI semantic conventions advise for the two client metrics.
_TOKEN_BUCKETS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864)
_DURATION_BUCKETS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92)


@dataclass(init=False)
class InstrumentationSettings:
    """Options for tracing agent runs, model requests and tool calls with OpenTelemetry.

    Used by the `Instrumentation` capability, `Agent(instrument=...)`, `Agent.instrument_all()` and
    `InstrumentedModel`. Spans and metrics follow the OpenTelemetry GenAI semantic conventions.

    ```python
    from agent import Agent, InstrumentationSettings

    agent = Agent('test', instrument=InstrumentationSettings(include_content=True))
    ```
    """

    tracer: Tracer = field(repr=False)
    """The tracer spans are started with."""
    meter: Meter = field(repr=False)
    """The meter the metrics are recorded with."""
    include_content: bool = False
    """Whether spans carry prompts, completions, instructions, tool arguments and results, and the run's output."""
    include_binary_content: bool = True
    """Whether recorded content keeps the data of binary files (only their media type otherwise)."""
    include_model_request_parameters: bool = True
    """Whether `chat` spans carry the request's parameters (tool definitions, output mode) as JSON."""
    version: Literal[2, 3, 4, 5, 6] = DEFAULT_INSTRUMENTATION_VERSION
    """The attribute layout: 6 puts tool results in messages with the `tool` role; earlier versions use `user`."""
    use_aggregated_usage_attribute_names: bool = True
    """Whether the run span reports its usage as `gen_ai.aggregated_usage.*`, so backends summing the
    `gen_ai.usage.*` of a trace do not count the run's tokens twice (once on the run, once on its requests)."""
    tokens_histogram: Histogram = field(repr=False)
    """The `gen_ai.client.token.usage` histogram."""
    duration_histogram: Histogram = field(repr=False)
    """The `gen_ai.client.operation.duration` histogram."""

    def __init__(
        self,
        *,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        include_binary_content: bool = True,
        include_content: bool = False,
        include_model_request_parameters: bool = True,
        version: Literal[2, 3, 4, 5, 6] = DEFAULT_INSTRUMENTATION_VERSION,
        use_aggregated_usage_attribute_names: bool = True,
    ) -> None:
        """Configure instrumentation.

        Args:
            tracer_provider: Where spans go; the global tracer provider when not given.
            meter_provider: Where metrics go; the global meter provider when not given.
            include_binary_content: Keep the data of binary files in recorded content (with `include_content`).
            include_content: Record message content, tool arguments and results, and the run's output. Off by
                default: content often holds personal or secret data, so it is recorded only when asked for.
            include_model_request_parameters: Record each request's parameters on its `chat` span.
            version: The attribute layout; 2 to 5 give the same spans, 6 gives tool results the `tool` role.
            use_aggregated_usage_attribute_names: Report the run span's usage as `gen_ai.aggregated_usage.*`.

        Raises:
            UserError: for an unknown `version`.
        """
        if version not in (2, 3, 4, 5, 6):
            raise UserError(f'Instrumentation version must be one of 2, 3, 4, 5 or 6, not {version!r}.')
        tracer_provider = tracer_provider or get_tracer_provider()
        meter_provider = meter_provider or get_meter_provider()
        self.tracer_provider = tracer_provider
        """Where the spans go (the global provider when none was given)."""
        self.tracer = tracer_provider.get_tracer(SCOPE_NAME, _SCOPE_VERSION)
        self.meter = meter_provider.get_meter(SCOPE_NAME, _SCOPE_VERSION)
        self.include_content = include_content
        self.include_binary_content = include_binary_content
        self.include_model_request_parameters = include_model_request_parameters
        self.version = version
        self.use_aggregated_usage_attribute_names = use_aggregated_usage_attribute_names
        self.tokens_histogram = self.meter.create_histogram(
            'gen_ai.client.token.usage',
            unit='{token}',
            description='Number of input and output tokens used',
            explicit_bucket_boundaries_advisory=_TOKEN_BUCKETS,
        )
        self.duration_histogram = self.meter.create_histogram(
            'gen_ai.client.operation.duration',
            unit='s',
            description='GenAI operation duration',
            explicit_bucket_boundaries_advisory=_DURATION_BUCKETS,
        )
