"""OpenTelemetry instrumentation of agent runs, following the GenAI semantic conventions.

The pieces, from the outside in:

- `InstrumentationSettings` (`_settings`): the tracer, the meter and its two histograms, and what may be recorded.
- The span functions (`_spans`): `agent_run_span`, `model_request_span`, `tool_call_span`; plain context managers
  over plain values, so whatever runs a model request or a tool call (the in-process capability, a wrapped model,
  a durable activity) records the same span.
- `_messages`: messages in the conventions' JSON shape, for `gen_ai.input.messages` and friends.

The `Instrumentation` capability (`agent.capabilities`) opens these spans around a run's lifecycle points, and
`InstrumentedModel` (`agent.models.instrumented`) around a bare model.

```
invoke_agent <agent>          (Instrumentation.wrap_run)
├── chat <model>              (wrap_model_request; CLIENT span + gen_ai.client.* metrics)
├── execute_tool <tool>       (wrap_tool_execute)
│   └── invoke_agent <other>  (an agent called from the tool nests under it)
└── chat <model>
```
"""

from ._messages import input_messages, output_message, system_instructions
from ._settings import DEFAULT_INSTRUMENTATION_VERSION, SCOPE_NAME, InstrumentationSettings
from ._spans import (
    ADOPTABLE_SPAN,
    AdoptableSpan,
    AgentRunSpan,
    ModelRequestSpan,
    ToolCallSpan,
    agent_run_span,
    model_attributes,
    model_request_span,
    tool_call_span,
    usage_attributes,
)

__all__ = (
    'ADOPTABLE_SPAN',
    'DEFAULT_INSTRUMENTATION_VERSION',
    'SCOPE_NAME',
    'AdoptableSpan',
    'AgentRunSpan',
    'InstrumentationSettings',
    'ModelRequestSpan',
    'ToolCallSpan',
    'agent_run_span',
    'input_messages',
    'model_attributes',
    'model_request_span',
    'output_message',
    'system_instructions',
    'tool_call_span',
    'usage_attributes',
)
