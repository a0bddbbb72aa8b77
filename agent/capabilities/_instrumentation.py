"""`Instrumentation`: OpenTelemetry spans and GenAI metrics for every run of an agent.

The run hooks of a run execute in a task of their own (see `agent._agent_run_setup`), so the `invoke_agent`
span that `wrap_run` opens there is not the current span where the graph runs. Two things tie the run's
work to it: `wrap_node_run` makes the run span current around each node (so spans users open in
instructions, validators or tools nest under the run), and the `chat` and `execute_tool` spans name the run
span as their parent explicitly (so they nest correctly even when a caller drives the run with
`async for node in agent_run`, which bypasses node hooks). Where no run span exists on this instance (the
model-request and tool hooks running alone, e.g. inside a durable activity) they nest under whatever span is
current.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import TYPE_CHECKING, Any

from opentelemetry.context import Context, attach, detach
from opentelemetry.trace import Span, set_span_in_context
from opentelemetry.util.types import AttributeValue

from agent._instrumentation import (
    InstrumentationSettings,
    agent_run_span,
    model_request_span,
    tool_call_span,
)
from agent._instrumentation._messages import redact_binary, to_json_str
from agent._model_request_context import ModelRequestContext
from agent._parts import ModelResponse, ToolCallPart
from agent._ports import current_ports
from agent._run_context import RunContext
from agent._tool_def import ToolDefinition

from ._abstract import AbstractCapability, WrapOutputProcessHandler
from ._types import (
    AgentNode,
    NodeResult,
    ValidatedToolArgs,
    WrapModelRequestHandler,
    WrapNodeRunHandler,
    WrapRunHandler,
)

if TYPE_CHECKING:
    from agent._agent import Agent
    from agent.output import OutputContext
    from agent.run import AgentRunResult

    from ._types import WrapToolExecuteHandler

__all__ = ('Instrumentation', 'instrumentation_for_run')


@dataclass
class Instrumentation(AbstractCapability[Any]):
    """Traces agent runs with OpenTelemetry, following the GenAI semantic conventions.

    Emits an `invoke_agent <agent>` span for the run, a `chat <model>` span for each model request and an
    `execute_tool <tool>` span for each tool call (and each output function), with the
    `gen_ai.client.token.usage` and `gen_ai.client.operation.duration` metrics. Put it first in
    `capabilities` so its spans cover the other capabilities' hooks.

    ```python
    from agent import Agent, InstrumentationSettings
    from agent.capabilities import Instrumentation

    agent = Agent('test', capabilities=[Instrumentation(InstrumentationSettings(include_content=True))])
    ```
    """

    settings: InstrumentationSettings = field(default_factory=InstrumentationSettings)
    """Where spans and metrics go and what they may record; the global providers, without content, by default."""
    _agent_name: str = field(default='agent', init=False, repr=False)
    _run_span: Span | None = field(default=None, init=False, repr=False)

    @classmethod
    def from_spec(cls, *args: Any, **kwargs: Any) -> Instrumentation:
        """Build from an agent spec: the keyword arguments of `InstrumentationSettings` that data can express.

        ```yaml
        capabilities:
          - Instrumentation: {include_content: true}
        ```
        """
        return cls(InstrumentationSettings(*args, **kwargs))

    async def for_run(self, ctx: RunContext[Any]) -> Instrumentation:
        """A copy holding this run's span (runs of the same agent may overlap)."""
        run = replace(self)
        run._agent_name = (ctx.agent.name if ctx.agent is not None else None) or 'agent'
        # A durable run records its spans with a tracer that emits each once across the workflow's replays.
        run.settings = current_ports().instrumentation(self.settings, ctx)
        return run

    def _parent(self) -> Context | None:
        return set_span_in_context(self._run_span) if self._run_span is not None else None

    def _run_attributes(self, ctx: RunContext[Any]) -> dict[str, AttributeValue]:
        name = self._agent_name if self._run_span is not None else (ctx.agent.name if ctx.agent else None)
        attributes: dict[str, AttributeValue] = {}
        if name:
            attributes['gen_ai.agent.name'] = name
        if ctx.run_id:
            attributes['gen_ai.agent.call.id'] = ctx.run_id
        if ctx.conversation_id:
            attributes['gen_ai.conversation.id'] = ctx.conversation_id
        return attributes

    async def wrap_run(self, ctx: RunContext[Any], *, handler: WrapRunHandler) -> AgentRunResult[Any]:
        """Open the `invoke_agent` span around the run."""
        description = getattr(ctx.agent, 'description', None)
        with agent_run_span(
            self.settings,
            agent_name=self._agent_name,
            run_id=ctx.run_id,
            conversation_id=ctx.conversation_id,
            model=ctx.model,
            description=description if isinstance(description, str) else None,
        ) as run_span:
            self._run_span = run_span.span
            try:
                result = await handler()
            finally:
                self._run_span = None
            run_span.finish(output=result.output, usage=result.usage())
            return result

    async def wrap_node_run(
        self, ctx: RunContext[Any], *, node: AgentNode[Any], handler: WrapNodeRunHandler[Any]
    ) -> NodeResult[Any]:
        """Make the run span current while a node runs (the run hooks live in another task)."""
        if self._run_span is None:
            return await handler(node)
        # The node's failures are the run's to judge (a capability may recover): the span is only made current, never
        # marked here (what `use_span` would do without its exception handling, once per node of every run).
        token = attach(set_span_in_context(self._run_span))
        try:
            return await handler(node)
        finally:
            detach(token)

    async def wrap_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, handler: WrapModelRequestHandler
    ) -> ModelResponse:
        """Open a `chat` span around the model request."""
        with model_request_span(
            self.settings, request_context, attributes=self._run_attributes(ctx), context=self._parent()
        ) as span:
            response = await handler(request_context)
            span.finish(response)
            return response

    async def wrap_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        handler: WrapToolExecuteHandler,
    ) -> Any:
        """Open an `execute_tool` span around the tool call."""
        attributes = self._run_attributes(ctx)
        if tool_def.description:
            attributes['gen_ai.tool.description'] = tool_def.description
        with tool_call_span(
            self.settings,
            tool_name=call.tool_name,
            tool_call_id=call.tool_call_id,
            # Serialized only to be recorded: content is off by default, and a tool call is a hot path.
            arguments=call.args_as_json_str() if self.settings.include_content else None,
            attributes=attributes,
            context=self._parent(),
        ) as span:
            result = await handler(args)
            span.finish(result)
            return result

    async def wrap_output_process(
        self, ctx: RunContext[Any], *, output_context: OutputContext, output: Any, handler: WrapOutputProcessHandler
    ) -> Any:
        """Open an `execute_tool` span around an output function (plain output runs no code, so gets none)."""
        if not output_context.has_function:
            return await handler(output)
        call = output_context.tool_call
        with tool_call_span(
            self.settings,
            tool_name=call.tool_name if call is not None else (output_context.function_name or 'output_function'),
            tool_call_id=call.tool_call_id if call is not None else None,
            arguments=to_json_str(redact_binary(output, self.settings)) if self.settings.include_content else None,
            attributes=self._run_attributes(ctx),
            context=self._parent(),
        ) as span:
            result = await handler(output)
            span.finish(result)
            return result


def instrumentation_for_run(agent: Agent[Any, Any], capabilities: Sequence[Any]) -> list[Instrumentation]:
    """The `Instrumentation` capability `Agent(instrument=...)` or `Agent.instrument_all()` asks for, if any.

    An `Instrumentation` among the run's own capabilities wins; `instrument=False` turns `instrument_all` off.
    """
    if any(isinstance(cap, Instrumentation) for cap in capabilities):
        return []
    instrument = getattr(agent, 'instrument', None)
    if instrument is None:
        instrument = getattr(type(agent), '_instrument_default', False)
    if not instrument:
        return []
    return [Instrumentation(_default_settings() if instrument is True else instrument)]


@cache
def _default_settings() -> InstrumentationSettings:
    # One instance for every `instrument=True` run: its tracer and meter come from the global providers'
    # proxies, which follow a provider installed later, and its histograms are created once.
    return InstrumentationSettings()
