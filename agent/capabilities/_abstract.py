"""`AbstractCapability`: the base class of every capability, with a pass-through default for every method.

A capability contributes configuration (a toolset, native tools, instructions, model settings, a wrapper
around the run's toolset) and hooks into seven lifecycle points of a run: the run itself, each graph node,
each model request, the validation and execution of each tool call, and the validation and processing of the
run's output. Every point has the same four
hooks: `before_*` (change the input), `wrap_*` (middleware around the operation), `after_*` (change the
result) and `on_*_error` (observe, transform or recover from a failure). The drivers in `_dispatch` are the
only code that runs a point; they define the order in which these hooks fire.
"""

from __future__ import annotations

from abc import ABC
from collections.abc import AsyncIterable, Awaitable, Callable, Sequence
from dataclasses import KW_ONLY, dataclass
from typing import TYPE_CHECKING, Any, Generic, Self, TypeAlias
from weakref import WeakKeyDictionary

from agent._model_request_context import ModelRequestContext
from agent._parts import ModelResponse, ToolCallPart
from agent._run_context import RunContext
from agent._tool import AgentDepsT
from agent._tool_def import ToolDefinition
from agent.exceptions import ModelRetry

from ._types import (
    AgentBuiltinTool,
    AgentInstructions,
    AgentModelSettings,
    AgentNode,
    CapabilityDescription,
    NodeResult,
    RawToolArgs,
    ValidatedToolArgs,
    WrapModelRequestHandler,
    WrapNodeRunHandler,
    WrapRunHandler,
    WrapToolExecuteHandler,
    WrapToolValidateHandler,
)

if TYPE_CHECKING:
    from pydantic import ValidationError

    from agent._deferred import DeferredToolRequests, DeferredToolResults
    from agent._events import AgentStreamEvent
    from agent.output import OutputContext
    from agent.run import AgentRunResult
    from agent.toolsets import AbstractToolset, AgentToolset

    from ._ordering import CapabilityOrdering
    from ._prefix_tools import PrefixTools

__all__ = ('HOOK_NAMES', 'AbstractCapability', 'RawOutput', 'WrapOutputProcessHandler', 'WrapOutputValidateHandler')

RawOutput: TypeAlias = str | dict[str, Any]
"""Output as the model sent it, before parsing: response text, or an output tool's arguments (JSON or a dict)."""

WrapOutputValidateHandler: TypeAlias = Callable[[RawOutput], Awaitable[Any]]
"""The handler `wrap_output_validate` receives: parses and validates raw output into the value asked for."""

WrapOutputProcessHandler: TypeAlias = Callable[[Any], Awaitable[Any]]
"""The handler `wrap_output_process` receives: calls the output function (if any) and the output validators."""

HOOK_NAMES: tuple[str, ...] = (
    'before_run',
    'after_run',
    'wrap_run',
    'on_run_error',
    'before_node_run',
    'after_node_run',
    'wrap_node_run',
    'on_node_run_error',
    'before_model_request',
    'after_model_request',
    'wrap_model_request',
    'on_model_request_error',
    'before_tool_validate',
    'after_tool_validate',
    'wrap_tool_validate',
    'on_tool_validate_error',
    'before_tool_execute',
    'after_tool_execute',
    'wrap_tool_execute',
    'on_tool_execute_error',
    'before_output_validate',
    'after_output_validate',
    'wrap_output_validate',
    'on_output_validate_error',
    'before_output_process',
    'after_output_process',
    'wrap_output_process',
    'on_output_process_error',
    'prepare_tools',
    'prepare_output_tools',
    'wrap_run_event_stream',
    'handle_deferred_tool_calls',
)
"""The names of every lifecycle hook a capability can implement."""

_overridden_cache: WeakKeyDictionary[type[AbstractCapability[Any]], frozenset[str]] = WeakKeyDictionary()


# `eq=False`: capabilities that are not dataclasses themselves keep identity equality and stay hashable.
@dataclass(init=False, eq=False)
class AbstractCapability(ABC, Generic[AgentDepsT]):
    """A reusable, composable unit of agent behaviour.

    Subclass it (usually as a `@dataclass`) and override only what you need: every method has a default
    that contributes nothing and passes values through unchanged. Configuration methods are called once when
    the agent is built, except `get_wrapper_toolset`, which is called for each run. Hooks are called during
    runs; `for_run` gives each run its own instance when the capability keeps per-run state.

    Every capability has three keyword-only fields (dataclass subclasses take them as keyword arguments):
    `id`, `description` and `defer_loading`. A capability with `defer_loading=True` starts as an entry in a
    catalog the model sees; its instructions and tools reach the model, its model settings and native tools
    apply and its hooks fire only once the model has loaded it with the `load_capability` tool.
    """

    _: KW_ONLY
    id: str | None = None
    """The capability's name within a run (the key of `RunContext.capabilities`); unique per run.

    Required with `defer_loading=True` (the model loads the capability by this id, and a later run finds the
    load in the message history by it). Without one, a run names the capability after its class
    (`MyCapability` -> `my_capability`, then `my_capability_2`, ...).
    """
    description: str | None = None
    """What the capability is for: shown next to its id in the catalog of deferred capabilities.

    For a description computed when the catalog is rendered, override `get_description` (or pass a function
    to `Capability(description=...)`).
    """
    defer_loading: bool = False
    """Whether the capability stays inactive until the model loads it with the `load_capability` tool."""

    # Configuration.

    def get_toolset(self) -> AgentToolset[AgentDepsT] | None:
        """A toolset to register: a toolset, or a function of the `RunContext` building one per run."""
        return None

    def get_builtin_tools(self) -> Sequence[AgentBuiltinTool[AgentDepsT]]:
        """Native (provider-executed) tools to register, or functions producing them per step.

        Override this or `get_native_tools` (Pydantic AI's later name); either one answers for both.
        """
        if type(self).get_native_tools is not AbstractCapability.get_native_tools:
            return self.get_native_tools()
        return []

    def get_native_tools(self) -> Sequence[AgentBuiltinTool[AgentDepsT]]:
        """The same as `get_builtin_tools`, under Pydantic AI's later name."""
        return self.get_builtin_tools()

    def get_wrapper_toolset(self, toolset: AbstractToolset[AgentDepsT]) -> AbstractToolset[AgentDepsT] | None:
        """Wrap the run's assembled non-output toolset (called once per run); `None` leaves it as it is."""
        return None

    def get_instructions(self) -> AgentInstructions[AgentDepsT] | None:
        """Instructions to add: strings, `TemplateStr`s or functions (return a function for dynamic values)."""
        return None

    def get_model_settings(self) -> AgentModelSettings[AgentDepsT] | None:
        """Model settings to merge over earlier layers, or a function computing them for each step."""
        return None

    # Per-run instances, naming and specs.

    async def for_run(self, ctx: RunContext[AgentDepsT]) -> Self:
        """The instance to use for one run; return a fresh one if the capability keeps per-run state."""
        return self

    def get_ordering(self) -> CapabilityOrdering | None:
        """Where this capability must sit among those it is combined with (`None`: where the user put it)."""
        return None

    def apply(self, visitor: Callable[[AbstractCapability[AgentDepsT]], None]) -> None:
        """Call `visitor` on each leaf capability of this tree (here: on this capability itself)."""
        visitor(self)

    def prefix_tools(self, prefix: str) -> PrefixTools[AgentDepsT]:
        """This capability with `prefix` added to the names of the tools it provides."""
        from ._prefix_tools import PrefixTools

        return PrefixTools(self, prefix=prefix)

    @classmethod
    def get_serialization_name(cls) -> str | None:
        """The name under which agent specs refer to this capability (the class name); `None` if unsupported."""
        return cls.__name__

    @classmethod
    def from_spec(cls, *args: Any, **kwargs: Any) -> Self:
        """Build the capability from the arguments written in an agent spec."""
        return cls(*args, **kwargs)

    @classmethod
    def overridden_hooks(cls) -> frozenset[str]:
        """The names of the hooks this class implements itself rather than inheriting the pass-through default.

        The runtime uses this to skip hooks that would do nothing, and to decide where the others must run.
        """
        cached = _overridden_cache.get(cls)
        if cached is None:
            cached = frozenset(
                name for name in HOOK_NAMES if getattr(cls, name) is not getattr(AbstractCapability, name)
            )
            _overridden_cache[cls] = cached
        return cached

    def hook_names(self) -> frozenset[str]:
        """The hooks that do something on this instance (for composite capabilities, those of their parts)."""
        return type(self).overridden_hooks()

    @property
    def has_wrap_node_run(self) -> bool:
        """Whether this capability (or a part of it) wraps graph nodes, which iterating a run then has to honour."""
        return 'wrap_node_run' in self.hook_names()

    @property
    def has_wrap_run_event_stream(self) -> bool:
        """Whether this capability (or a part of it) watches the run's event stream."""
        return 'wrap_run_event_stream' in self.hook_names()

    def get_description(self) -> CapabilityDescription[AgentDepsT] | None:
        """The description shown in the catalog of deferred capabilities: a string, a function or `None`.

        Defaults to the `description` field; override it to compute one, or return a function of the
        `RunContext` for a description that depends on the run.
        """
        return self.description

    # Run hooks.

    async def before_run(self, ctx: RunContext[AgentDepsT]) -> None:
        """Called when a run starts (observe only)."""

    async def after_run(self, ctx: RunContext[AgentDepsT], *, result: AgentRunResult[Any]) -> AgentRunResult[Any]:
        """Change the result of a successful (or recovered) run."""
        return result

    async def wrap_run(self, ctx: RunContext[AgentDepsT], *, handler: WrapRunHandler) -> AgentRunResult[Any]:
        """Wrap the whole run; `await handler()` runs it."""
        return await handler()

    async def on_run_error(self, ctx: RunContext[AgentDepsT], *, error: BaseException) -> AgentRunResult[Any]:
        """Handle a failed run: raise to propagate (or transform) the error, return a result to recover."""
        raise error

    # Node hooks.

    async def before_node_run(
        self, ctx: RunContext[AgentDepsT], *, node: AgentNode[AgentDepsT]
    ) -> AgentNode[AgentDepsT]:
        """Observe or replace a graph node before it runs."""
        return node

    async def after_node_run(
        self, ctx: RunContext[AgentDepsT], *, node: AgentNode[AgentDepsT], result: NodeResult[AgentDepsT]
    ) -> NodeResult[AgentDepsT]:
        """Change what a node produced (the next node or `End`)."""
        return result

    async def wrap_node_run(
        self, ctx: RunContext[AgentDepsT], *, node: AgentNode[AgentDepsT], handler: WrapNodeRunHandler[AgentDepsT]
    ) -> NodeResult[AgentDepsT]:
        """Wrap a graph node; `await handler(node)` runs it."""
        return await handler(node)

    async def on_node_run_error(
        self, ctx: RunContext[AgentDepsT], *, node: AgentNode[AgentDepsT], error: BaseException
    ) -> NodeResult[AgentDepsT]:
        """Handle a failed node: raise to propagate (or transform) the error, return the next node to recover."""
        raise error

    # Model request hooks.

    async def before_model_request(
        self, ctx: RunContext[AgentDepsT], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        """Change the request before it is sent; raise `SkipModelRequest(response)` to skip the model call."""
        return request_context

    async def after_model_request(
        self, ctx: RunContext[AgentDepsT], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        """Change the model's (or a recovered) response."""
        return response

    async def wrap_model_request(
        self, ctx: RunContext[AgentDepsT], *, request_context: ModelRequestContext, handler: WrapModelRequestHandler
    ) -> ModelResponse:
        """Wrap the model call; `await handler(request_context)` sends it."""
        return await handler(request_context)

    async def on_model_request_error(
        self, ctx: RunContext[AgentDepsT], *, request_context: ModelRequestContext, error: Exception
    ) -> ModelResponse:
        """Handle a failed model request: raise to propagate (or transform), return a response to recover."""
        raise error

    # Tool validation hooks.

    async def before_tool_validate(
        self, ctx: RunContext[AgentDepsT], *, call: ToolCallPart, tool_def: ToolDefinition, args: RawToolArgs
    ) -> RawToolArgs:
        """Change raw arguments before validation; raise `SkipToolValidation(args)` to skip validation."""
        return args

    async def after_tool_validate(
        self, ctx: RunContext[AgentDepsT], *, call: ToolCallPart, tool_def: ToolDefinition, args: ValidatedToolArgs
    ) -> ValidatedToolArgs:
        """Change validated arguments."""
        return args

    async def wrap_tool_validate(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: RawToolArgs,
        handler: WrapToolValidateHandler,
    ) -> ValidatedToolArgs:
        """Wrap validation; `await handler(args)` validates."""
        return await handler(args)

    async def on_tool_validate_error(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: RawToolArgs,
        error: Exception,
    ) -> ValidatedToolArgs:
        """Handle failed validation: raise to propagate (or transform), return validated arguments to recover."""
        raise error

    # Tool execution hooks.

    async def before_tool_execute(
        self, ctx: RunContext[AgentDepsT], *, call: ToolCallPart, tool_def: ToolDefinition, args: ValidatedToolArgs
    ) -> ValidatedToolArgs:
        """Change arguments before the tool runs; raise `SkipToolExecution(result)` to skip running it."""
        return args

    async def after_tool_execute(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        result: Any,
    ) -> Any:
        """Change the tool's (or a recovered) result."""
        return result

    async def wrap_tool_execute(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        handler: WrapToolExecuteHandler,
    ) -> Any:
        """Wrap execution; `await handler(args)` runs the tool."""
        return await handler(args)

    async def on_tool_execute_error(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        error: Exception,
    ) -> Any:
        """Handle a failed tool: raise to propagate (e.g. to the retry flow), return a result to recover."""
        raise error

    # Output hooks. They see the value the model was asked for (`42` for `output_type=int`, not the
    # `{'response': 42}` object it is sent as); a `ModelRetry` or `ValidationError` raised by any of them sends
    # the model a retry prompt. In a durable run they run in the workflow, so they must be deterministic.

    async def before_output_validate(
        self, ctx: RunContext[AgentDepsT], *, output_context: OutputContext, output: RawOutput
    ) -> RawOutput:
        """Repair or normalise raw output before it is parsed.

        Called only for output that is parsed: output tool arguments, and response text in the native and
        prompted modes (not for plain text). Raise `ModelRetry` to ask the model again without validating.
        """
        return output

    async def after_output_validate(
        self, ctx: RunContext[AgentDepsT], *, output_context: OutputContext, output: Any
    ) -> Any:
        """Change the validated output: the value asked for (for an output function, its argument, or the dict of
        its arguments when it takes several). Raise `ModelRetry` to reject it."""
        return output

    async def wrap_output_validate(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        output_context: OutputContext,
        output: RawOutput,
        handler: WrapOutputValidateHandler,
    ) -> Any:
        """Wrap parsing and validation; `await handler(output)` validates.

        A `ValidationError` or `ModelRetry` from the handler goes to `on_output_validate_error`.
        """
        return await handler(output)

    async def on_output_validate_error(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        output_context: OutputContext,
        output: RawOutput,
        error: ValidationError | ModelRetry,
    ) -> Any:
        """Handle output that failed validation: raise to propagate (a retry prompt), return a value to recover."""
        raise error

    async def before_output_process(
        self, ctx: RunContext[AgentDepsT], *, output_context: OutputContext, output: Any
    ) -> Any:
        """Change the validated output before the output function (if any) and the output validators run.

        Called for every final output, text included. Raise `ModelRetry` to ask the model again.
        """
        return output

    async def after_output_process(
        self, ctx: RunContext[AgentDepsT], *, output_context: OutputContext, output: Any
    ) -> Any:
        """Change the run's output value. Raise `ModelRetry` to reject it and ask the model again."""
        return output

    async def wrap_output_process(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        output_context: OutputContext,
        output: Any,
        handler: WrapOutputProcessHandler,
    ) -> Any:
        """Wrap output processing; `await handler(output)` calls the output function and the output validators.

        A `ModelRetry` from the handler is a retry, not a failure: it skips `on_output_process_error`.
        """
        return await handler(output)

    async def on_output_process_error(
        self, ctx: RunContext[AgentDepsT], *, output_context: OutputContext, output: Any, error: Exception
    ) -> Any:
        """Handle failed output processing: raise to propagate (or transform), return a value to use as output."""
        raise error

    # Tool visibility and event streams.

    async def prepare_tools(self, ctx: RunContext[AgentDepsT], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        """Filter or change the tool definitions the model sees on this step (all kinds, output included)."""
        return tool_defs

    async def prepare_output_tools(
        self, ctx: RunContext[AgentDepsT], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        """Filter or change the output tool definitions the model sees on this step (after `prepare_tools`)."""
        return tool_defs

    async def handle_deferred_tool_calls(
        self, ctx: RunContext[AgentDepsT], *, requests: DeferredToolRequests
    ) -> DeferredToolResults | None:
        """Resolve some or all of the calls that need approval or external execution, without ending the run.

        Return results for the calls it resolves, or `None` to leave them all to the next capability; what no
        capability resolves ends the run with `DeferredToolRequests` (or, durably, waits for a human). Runs in the
        workflow in a durable run, so it must be deterministic.
        """
        return None

    def wrap_run_event_stream(
        self, ctx: RunContext[AgentDepsT], *, stream: AsyncIterable[AgentStreamEvent]
    ) -> AsyncIterable[AgentStreamEvent]:
        """Observe, filter or transform a run's streamed events (usually written as an async generator)."""
        return stream
