"""The output hooks of `CombinedCapability`, composed by the same rules as its other hooks.

`before_*` run in order, `after_*` and `on_*_error` in reverse, and `wrap_*` nest with the first capability
outermost. They live in this mixin only to keep `_combined.py` a readable size.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent._run_context import RunContext
from agent._tool import AgentDepsT
from agent.exceptions import ModelRetry

from ._abstract import AbstractCapability, RawOutput, WrapOutputProcessHandler, WrapOutputValidateHandler
from ._registry import capability_is_live

if TYPE_CHECKING:
    from pydantic import ValidationError

    from agent.output import OutputContext

__all__ = ('CombinedOutputHooks',)


class CombinedOutputHooks(AbstractCapability[AgentDepsT]):
    """The output hooks of a combination of capabilities (mixed into `CombinedCapability`)."""

    capabilities: Sequence[AbstractCapability[AgentDepsT]]

    def _live(
        self, ctx: RunContext[AgentDepsT], *, reverse: bool = False
    ) -> list[tuple[AbstractCapability[AgentDepsT], RunContext[AgentDepsT]]]:
        """The parts whose hooks fire now, each with the context its hooks get, in order (or reversed).

        A deferred part fires only once the model has loaded it, and its hooks then see
        `ctx.capability_loaded=True`; the others get the context unchanged.
        """
        parts = reversed(self.capabilities) if reverse else self.capabilities
        live: list[tuple[AbstractCapability[AgentDepsT], RunContext[AgentDepsT]]] = []
        for cap in parts:
            if cap.defer_loading is not True:
                live.append((cap, ctx))
            elif capability_is_live(cap, ctx):
                live.append((cap, ctx.replace_with(capability_loaded=True)))
        return live

    async def before_output_validate(
        self, ctx: RunContext[AgentDepsT], *, output_context: OutputContext, output: RawOutput
    ) -> RawOutput:
        for cap, cap_ctx in self._live(ctx):
            output = await cap.before_output_validate(cap_ctx, output_context=output_context, output=output)
        return output

    async def after_output_validate(
        self, ctx: RunContext[AgentDepsT], *, output_context: OutputContext, output: Any
    ) -> Any:
        for cap, cap_ctx in self._live(ctx, reverse=True):
            output = await cap.after_output_validate(cap_ctx, output_context=output_context, output=output)
        return output

    async def wrap_output_validate(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        output_context: OutputContext,
        output: RawOutput,
        handler: WrapOutputValidateHandler,
    ) -> Any:
        for cap, cap_ctx in self._live(ctx, reverse=True):
            handler = _validate_layer(cap, cap_ctx, output_context, handler)
        return await handler(output)

    async def on_output_validate_error(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        output_context: OutputContext,
        output: RawOutput,
        error: ValidationError | ModelRetry,
    ) -> Any:
        current: Exception = error
        for cap, cap_ctx in self._live(ctx, reverse=True):
            try:
                return await cap.on_output_validate_error(
                    cap_ctx,
                    output_context=output_context,
                    output=output,
                    error=current,  # pyright: ignore[reportArgumentType]  # a part may have raised another error
                )
            except Exception as raised:
                current = raised
        raise current

    async def before_output_process(
        self, ctx: RunContext[AgentDepsT], *, output_context: OutputContext, output: Any
    ) -> Any:
        for cap, cap_ctx in self._live(ctx):
            output = await cap.before_output_process(cap_ctx, output_context=output_context, output=output)
        return output

    async def after_output_process(
        self, ctx: RunContext[AgentDepsT], *, output_context: OutputContext, output: Any
    ) -> Any:
        for cap, cap_ctx in self._live(ctx, reverse=True):
            output = await cap.after_output_process(cap_ctx, output_context=output_context, output=output)
        return output

    async def wrap_output_process(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        output_context: OutputContext,
        output: Any,
        handler: WrapOutputProcessHandler,
    ) -> Any:
        for cap, cap_ctx in self._live(ctx, reverse=True):
            handler = _process_layer(cap, cap_ctx, output_context, handler)
        return await handler(output)

    async def on_output_process_error(
        self, ctx: RunContext[AgentDepsT], *, output_context: OutputContext, output: Any, error: Exception
    ) -> Any:
        for cap, cap_ctx in self._live(ctx, reverse=True):
            try:
                return await cap.on_output_process_error(
                    cap_ctx, output_context=output_context, output=output, error=error
                )
            except Exception as raised:
                error = raised
        raise error


def _validate_layer(
    cap: AbstractCapability[Any], ctx: RunContext[Any], output_context: OutputContext, inner: WrapOutputValidateHandler
) -> WrapOutputValidateHandler:
    async def validate(output: RawOutput) -> Any:
        return await cap.wrap_output_validate(ctx, output_context=output_context, output=output, handler=inner)

    return validate


def _process_layer(
    cap: AbstractCapability[Any], ctx: RunContext[Any], output_context: OutputContext, inner: WrapOutputProcessHandler
) -> WrapOutputProcessHandler:
    async def process(output: Any) -> Any:
        return await cap.wrap_output_process(ctx, output_context=output_context, output=output, handler=inner)

    return process
