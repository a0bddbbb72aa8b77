"""`CombinedCapability`: several capabilities composed into one, following the composition rules.

- Configuration merges: instructions concatenate, model settings merge (later ones override earlier ones,
  key by key), toolsets combine, native tools collect, and toolset wrappers nest with the first outermost.
- `before_*` hooks run in order (cap1 → cap3), each seeing the previous one's output; `after_*` hooks run in
  reverse (cap3 → cap1); `wrap_*` hooks nest as middleware with cap1 outermost, so the first capability
  sees the original input first and the final output last.
- `on_*_error` hooks run in reverse, like `after_*`. Each receives the current error: raising (the same
  or another exception) hands that exception to the next, returning a value recovers and skips the rest.
- The output hooks (validation and processing) follow the same rules; they are in `_combined_output`.
- A `Skip*` signal raised by an inner capability's `wrap_*` becomes the result its outer neighbour's
  handler returns, so outer middleware sees a normal result.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Self, cast

from agent._deferred import DeferredToolResults
from agent._model_request_context import ModelRequestContext
from agent._parts import ModelResponse, ToolCallPart
from agent._run_context import RunContext
from agent._tool import AgentDepsT
from agent._tool_def import ToolDefinition
from agent.exceptions import SkipModelRequest, SkipToolExecution, SkipToolValidation
from agent.settings import ModelSettings, merge_model_settings

from ._abstract import AbstractCapability
from ._combined_output import CombinedOutputHooks
from ._dynamic import as_capabilities
from ._ordering import collect_leaves, sort_capabilities
from ._registry import capability_is_live
from ._types import (
    AgentBuiltinTool,
    AgentInstructions,
    AgentModelSettings,
    AgentNode,
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
    from agent._deferred import DeferredToolRequests
    from agent._events import AgentStreamEvent
    from agent.run import AgentRunResult
    from agent.toolsets import AbstractToolset, AgentToolset

__all__ = ('CombinedCapability',)


@dataclass
class CombinedCapability(CombinedOutputHooks[AgentDepsT]):
    """Several capabilities acting as one; an agent composes its `capabilities` into one of these."""

    capabilities: Sequence[AbstractCapability[AgentDepsT]]
    """The capabilities, in order: the first one's hooks see inputs first and outputs last."""

    def __post_init__(self) -> None:
        # Functions are accepted wherever capabilities are (`Agent(capabilities=[...])`, `run(capabilities=...)`).
        # A nested combination is spread into this one, so its parts are ordered as siblings of the others.
        self.capabilities = [
            part
            for cap in as_capabilities(self.capabilities)
            for part in (cap.capabilities if isinstance(cap, CombinedCapability) else [cap])
        ]
        if any(leaf.get_ordering() is not None for cap in self.capabilities for leaf in collect_leaves(cap)):
            self.capabilities = sort_capabilities(self.capabilities)

    def apply(self, visitor: Callable[[AbstractCapability[AgentDepsT]], None]) -> None:
        for cap in self.capabilities:
            cap.apply(visitor)

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None

    def hook_names(self) -> frozenset[str]:
        """The union of the parts' hooks."""
        return frozenset[str]().union(*(cap.hook_names() for cap in self.capabilities))

    # Configuration.

    def get_toolset(self) -> AgentToolset[AgentDepsT] | None:
        """The parts' toolsets combined, each tagged with the part that owns it (see `CapabilityOwnedToolset`)."""
        from agent.toolsets import CombinedToolset, as_toolset
        from agent.toolsets._capability_owned import CapabilityOwnedToolset

        owned: list[AbstractToolset[AgentDepsT]] = [
            CapabilityOwnedToolset(as_toolset(toolset), capability=cap)
            for cap in self.capabilities
            if (toolset := cap.get_toolset()) is not None
        ]
        return CombinedToolset(owned) if owned else None

    def get_builtin_tools(self) -> Sequence[AgentBuiltinTool[AgentDepsT]]:
        """The parts' native tools; a deferred part's ones become functions giving nothing until it is loaded."""
        tools: list[AgentBuiltinTool[AgentDepsT]] = []
        for cap in self.capabilities:
            if cap.defer_loading is not True:
                tools.extend(cap.get_builtin_tools())
            else:
                tools.extend(_gated_native_tool(cap, tool) for tool in cap.get_builtin_tools())
        return tools

    def get_wrapper_toolset(self, toolset: AbstractToolset[AgentDepsT]) -> AbstractToolset[AgentDepsT] | None:
        wrapped: AbstractToolset[AgentDepsT] | None = None
        # Innermost first, so the first capability's wrapper ends up outermost.
        for cap in reversed(self.capabilities):
            wrapper = cap.get_wrapper_toolset(wrapped or toolset)
            if wrapper is not None:
                wrapped = wrapper
        return wrapped

    def get_instructions(self) -> AgentInstructions[AgentDepsT] | None:
        """The parts' instructions in order; a deferred part's come with its `load_capability` result instead."""
        parts: list[Any] = []
        for cap in self.capabilities:
            if cap.defer_loading is True:
                continue
            instructions = cap.get_instructions()
            if instructions is None:
                continue
            if isinstance(instructions, Sequence) and not isinstance(instructions, str):
                parts.extend(cast(Sequence[Any], instructions))
            else:
                parts.append(instructions)
        return parts or None

    def get_model_settings(self) -> AgentModelSettings[AgentDepsT] | None:
        """The parts' settings merged in order; a deferred part's apply only once it is loaded."""
        layers = [
            settings if cap.defer_loading is not True else _gated_settings(cap, settings)
            for cap in self.capabilities
            if (settings := cap.get_model_settings()) is not None
        ]
        if not layers:
            return None
        static = [layer for layer in layers if not callable(layer)]
        if len(static) == len(layers):
            return merge_model_settings(*static)

        def resolve(ctx: RunContext[AgentDepsT]) -> ModelSettings:
            contributed = ModelSettings()
            for layer in layers:
                if callable(layer):
                    # Each function sees everything resolved before it: the earlier layers outside the
                    # capabilities (already in `ctx.model_settings`) and the capabilities before it.
                    seen = merge_model_settings(ctx.model_settings, contributed)
                    layer = layer(ctx.replace_with(model_settings=seen))
                contributed = merge_model_settings(contributed, layer) or contributed
            return contributed

        return resolve

    async def for_run(self, ctx: RunContext[AgentDepsT]) -> Self:
        """A combination of every part's per-run instance (this one itself when no part changed)."""
        parts = [await cap.for_run(ctx) for cap in self.capabilities]
        if all(new is old for new, old in zip(parts, self.capabilities, strict=True)):
            return self
        return replace(self, capabilities=parts)

    # Run hooks.

    async def before_run(self, ctx: RunContext[AgentDepsT]) -> None:
        for cap, cap_ctx in self._live(ctx):
            await cap.before_run(cap_ctx)

    async def after_run(self, ctx: RunContext[AgentDepsT], *, result: AgentRunResult[Any]) -> AgentRunResult[Any]:
        for cap, cap_ctx in self._live(ctx, reverse=True):
            result = await cap.after_run(cap_ctx, result=result)
        return result

    async def wrap_run(self, ctx: RunContext[AgentDepsT], *, handler: WrapRunHandler) -> AgentRunResult[Any]:
        for cap, cap_ctx in self._live(ctx, reverse=True):
            handler = _run_layer(cap, cap_ctx, handler)
        return await handler()

    async def on_run_error(self, ctx: RunContext[AgentDepsT], *, error: BaseException) -> AgentRunResult[Any]:
        for cap, cap_ctx in self._live(ctx, reverse=True):
            try:
                return await cap.on_run_error(cap_ctx, error=error)
            except Exception as raised:
                error = raised
        raise error

    # Node hooks.

    async def before_node_run(
        self, ctx: RunContext[AgentDepsT], *, node: AgentNode[AgentDepsT]
    ) -> AgentNode[AgentDepsT]:
        for cap, cap_ctx in self._live(ctx):
            node = await cap.before_node_run(cap_ctx, node=node)
        return node

    async def after_node_run(
        self, ctx: RunContext[AgentDepsT], *, node: AgentNode[AgentDepsT], result: NodeResult[AgentDepsT]
    ) -> NodeResult[AgentDepsT]:
        for cap, cap_ctx in self._live(ctx, reverse=True):
            result = await cap.after_node_run(cap_ctx, node=node, result=result)
        return result

    async def wrap_node_run(
        self, ctx: RunContext[AgentDepsT], *, node: AgentNode[AgentDepsT], handler: WrapNodeRunHandler[AgentDepsT]
    ) -> NodeResult[AgentDepsT]:
        for cap, cap_ctx in self._live(ctx, reverse=True):
            handler = _node_layer(cap, cap_ctx, handler)
        return await handler(node)

    async def on_node_run_error(
        self, ctx: RunContext[AgentDepsT], *, node: AgentNode[AgentDepsT], error: BaseException
    ) -> NodeResult[AgentDepsT]:
        for cap, cap_ctx in self._live(ctx, reverse=True):
            try:
                return await cap.on_node_run_error(cap_ctx, node=node, error=error)
            except Exception as raised:
                error = raised
        raise error

    # Model request hooks.

    async def before_model_request(
        self, ctx: RunContext[AgentDepsT], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        for cap, cap_ctx in self._live(ctx):
            request_context = await cap.before_model_request(cap_ctx, request_context)
        return request_context

    async def after_model_request(
        self, ctx: RunContext[AgentDepsT], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        for cap, cap_ctx in self._live(ctx, reverse=True):
            response = await cap.after_model_request(cap_ctx, request_context=request_context, response=response)
        return response

    async def wrap_model_request(
        self, ctx: RunContext[AgentDepsT], *, request_context: ModelRequestContext, handler: WrapModelRequestHandler
    ) -> ModelResponse:
        live = self._live(ctx)
        for index in reversed(range(len(live))):
            cap, cap_ctx = live[index]
            handler = _model_request_layer(cap, cap_ctx, handler, absorb_skip=index > 0)
        return await handler(request_context)

    async def on_model_request_error(
        self, ctx: RunContext[AgentDepsT], *, request_context: ModelRequestContext, error: Exception
    ) -> ModelResponse:
        for cap, cap_ctx in self._live(ctx, reverse=True):
            try:
                return await cap.on_model_request_error(cap_ctx, request_context=request_context, error=error)
            except Exception as raised:
                error = raised
        raise error

    # Tool validation hooks.

    async def before_tool_validate(
        self, ctx: RunContext[AgentDepsT], *, call: ToolCallPart, tool_def: ToolDefinition, args: RawToolArgs
    ) -> RawToolArgs:
        for cap, cap_ctx in self._live(ctx):
            args = await cap.before_tool_validate(cap_ctx, call=call, tool_def=tool_def, args=args)
        return args

    async def after_tool_validate(
        self, ctx: RunContext[AgentDepsT], *, call: ToolCallPart, tool_def: ToolDefinition, args: ValidatedToolArgs
    ) -> ValidatedToolArgs:
        for cap, cap_ctx in self._live(ctx, reverse=True):
            args = await cap.after_tool_validate(cap_ctx, call=call, tool_def=tool_def, args=args)
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
        live = self._live(ctx)
        for index in reversed(range(len(live))):
            cap, cap_ctx = live[index]
            handler = _tool_validate_layer(cap, cap_ctx, call, tool_def, handler, absorb_skip=index > 0)
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
        for cap, cap_ctx in self._live(ctx, reverse=True):
            try:
                return await cap.on_tool_validate_error(cap_ctx, call=call, tool_def=tool_def, args=args, error=error)
            except Exception as raised:
                error = raised
        raise error

    # Tool execution hooks.

    async def before_tool_execute(
        self, ctx: RunContext[AgentDepsT], *, call: ToolCallPart, tool_def: ToolDefinition, args: ValidatedToolArgs
    ) -> ValidatedToolArgs:
        for cap, cap_ctx in self._live(ctx):
            args = await cap.before_tool_execute(cap_ctx, call=call, tool_def=tool_def, args=args)
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
        for cap, cap_ctx in self._live(ctx, reverse=True):
            result = await cap.after_tool_execute(cap_ctx, call=call, tool_def=tool_def, args=args, result=result)
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
        live = self._live(ctx)
        for index in reversed(range(len(live))):
            cap, cap_ctx = live[index]
            handler = _tool_execute_layer(cap, cap_ctx, call, tool_def, handler, absorb_skip=index > 0)
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
        for cap, cap_ctx in self._live(ctx, reverse=True):
            try:
                return await cap.on_tool_execute_error(cap_ctx, call=call, tool_def=tool_def, args=args, error=error)
            except Exception as raised:
                error = raised
        raise error

    # Tool visibility and event streams.

    async def prepare_tools(self, ctx: RunContext[AgentDepsT], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        """The parts' `prepare_tools` over the function tools, and their `prepare_output_tools` over the output tools.

        The engine prepares every kind of tool in one call; each hook gets only its own kind, and the output tools
        keep their place after the others.
        """
        function_defs = [td for td in tool_defs if td.kind != 'output']
        output_defs = [td for td in tool_defs if td.kind == 'output']
        for cap, cap_ctx in self._live(ctx):
            function_defs = await cap.prepare_tools(cap_ctx, function_defs)
        if output_defs and 'prepare_output_tools' in self.hook_names():
            output_defs = await self.prepare_output_tools(ctx, output_defs)
        return [*function_defs, *output_defs]

    async def prepare_output_tools(
        self, ctx: RunContext[AgentDepsT], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        for cap, cap_ctx in self._live(ctx):
            tool_defs = await cap.prepare_output_tools(cap_ctx, tool_defs)
        return tool_defs

    async def handle_deferred_tool_calls(
        self, ctx: RunContext[AgentDepsT], *, requests: DeferredToolRequests
    ) -> DeferredToolResults | None:
        """Ask each part in order about the calls still unresolved; `None` if none resolved anything."""
        resolved: DeferredToolResults | None = None
        remaining = requests
        for cap, cap_ctx in self._live(ctx):
            results = await cap.handle_deferred_tool_calls(cap_ctx, requests=remaining)
            if results is None or not results.tool_call_ids:
                continue
            if resolved is None:
                resolved = DeferredToolResults()
            resolved.update(results)
            left = remaining.remaining(results)
            if left is None:
                break
            remaining = left
        return resolved

    def wrap_run_event_stream(
        self, ctx: RunContext[AgentDepsT], *, stream: AsyncIterable[AgentStreamEvent]
    ) -> AsyncIterable[AgentStreamEvent]:
        for cap, cap_ctx in self._live(ctx, reverse=True):
            stream = cap.wrap_run_event_stream(cap_ctx, stream=stream)
        return stream


def _gated_native_tool(cap: AbstractCapability[AgentDepsT], tool: Any) -> Callable[[RunContext[AgentDepsT]], Any]:
    """`tool` (or what the function `tool` gives) while the deferred `cap` is loaded; `None` before."""

    def native_tool(ctx: RunContext[AgentDepsT]) -> Any:
        if not capability_is_live(cap, ctx):
            return None
        return tool(ctx.replace_with(capability_loaded=True)) if callable(tool) else tool

    return native_tool


def _gated_settings(
    cap: AbstractCapability[AgentDepsT], settings: AgentModelSettings[AgentDepsT]
) -> Callable[[RunContext[AgentDepsT]], ModelSettings]:
    """The deferred `cap`'s settings while it is loaded; no settings before (keeping its place in the merge)."""

    def resolve(ctx: RunContext[AgentDepsT]) -> ModelSettings:
        if not capability_is_live(cap, ctx):
            return ModelSettings()
        return settings(ctx.replace_with(capability_loaded=True)) if callable(settings) else settings

    return resolve


# Each `_*_layer` turns one capability's `wrap_*` hook into the handler its outer neighbour receives.


def _run_layer(cap: AbstractCapability[Any], ctx: RunContext[Any], inner: WrapRunHandler) -> WrapRunHandler:
    async def run() -> AgentRunResult[Any]:
        return await cap.wrap_run(ctx, handler=inner)

    return run


def _node_layer(
    cap: AbstractCapability[AgentDepsT], ctx: RunContext[AgentDepsT], inner: WrapNodeRunHandler[AgentDepsT]
) -> WrapNodeRunHandler[AgentDepsT]:
    async def run_node(node: AgentNode[AgentDepsT]) -> NodeResult[AgentDepsT]:
        return await cap.wrap_node_run(ctx, node=node, handler=inner)

    return run_node


def _model_request_layer(
    cap: AbstractCapability[Any], ctx: RunContext[Any], inner: WrapModelRequestHandler, *, absorb_skip: bool
) -> WrapModelRequestHandler:
    async def request(request_context: ModelRequestContext) -> ModelResponse:
        try:
            return await cap.wrap_model_request(ctx, request_context=request_context, handler=inner)
        except SkipModelRequest as skip:
            if not absorb_skip:
                raise
            return skip.response

    return request


def _tool_validate_layer(
    cap: AbstractCapability[Any],
    ctx: RunContext[Any],
    call: ToolCallPart,
    tool_def: ToolDefinition,
    inner: WrapToolValidateHandler,
    *,
    absorb_skip: bool,
) -> WrapToolValidateHandler:
    async def validate(args: RawToolArgs) -> ValidatedToolArgs:
        try:
            return await cap.wrap_tool_validate(ctx, call=call, tool_def=tool_def, args=args, handler=inner)
        except SkipToolValidation as skip:
            if not absorb_skip:
                raise
            return skip.args

    return validate


def _tool_execute_layer(
    cap: AbstractCapability[Any],
    ctx: RunContext[Any],
    call: ToolCallPart,
    tool_def: ToolDefinition,
    inner: WrapToolExecuteHandler,
    *,
    absorb_skip: bool,
) -> WrapToolExecuteHandler:
    async def execute(args: ValidatedToolArgs) -> Any:
        try:
            return await cap.wrap_tool_execute(ctx, call=call, tool_def=tool_def, args=args, handler=inner)
        except SkipToolExecution as skip:
            if not absorb_skip:
                raise
            return skip.result

    return execute
