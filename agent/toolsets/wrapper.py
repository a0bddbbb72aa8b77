"""`WrapperToolset`: the base for toolsets that change how another toolset's tools look or run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Self

from agent._run_context import RunContext
from agent._tool import AgentDepsT

from .abstract import AbstractToolset, ToolsetInstructions, ToolsetTool

__all__ = ('WrapperToolset',)


@dataclass
class WrapperToolset(AbstractToolset[AgentDepsT]):
    """Delegates everything to a wrapped toolset; subclass it and override what should differ.

    The tools it returns name the wrapper as their `toolset`, so their calls go through the wrapper's
    `call_tool`, which by default hands the call on to the wrapped toolset unchanged.
    """

    wrapped: AbstractToolset[AgentDepsT]
    """The toolset being wrapped."""

    @property
    def id(self) -> str | None:
        """The wrapped toolset's id."""
        return self.wrapped.id

    @property
    def label(self) -> str:
        """The wrapper's class name around the wrapped toolset's label: `PrefixedToolset(FunctionToolset 'x')`."""
        return f'{type(self).__name__}({self.wrapped.label})'

    @property
    def tool_name_conflict_hint(self) -> str:
        """The wrapped toolset's hint."""
        return self.wrapped.tool_name_conflict_hint

    async def for_run(self, ctx: RunContext[AgentDepsT]) -> AbstractToolset[AgentDepsT]:
        """This wrapper around the wrapped toolset's per-run instance (`self` if that is unchanged)."""
        wrapped = await self.wrapped.for_run(ctx)
        return self if wrapped is self.wrapped else replace(self, wrapped=wrapped)

    async def for_run_step(self, ctx: RunContext[AgentDepsT]) -> AbstractToolset[AgentDepsT]:
        """This wrapper around the wrapped toolset's per-step instance (`self` if that is unchanged)."""
        wrapped = await self.wrapped.for_run_step(ctx)
        return self if wrapped is self.wrapped else replace(self, wrapped=wrapped)

    async def __aenter__(self) -> Self:
        await self.wrapped.__aenter__()
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        return await self.wrapped.__aexit__(*args)

    async def get_instructions(self, ctx: RunContext[AgentDepsT]) -> ToolsetInstructions:
        """The wrapped toolset's instructions."""
        return await self.wrapped.get_instructions(ctx)

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The wrapped toolset's tools, routed through this wrapper."""
        tools = await self.wrapped.get_tools(ctx)
        return {name: replace(tool, toolset=self) for name, tool in tools.items()}

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Hand the call on to the wrapped toolset."""
        return await self.wrapped.call_tool(name, tool_args, ctx, tool)

    def apply(self, visitor: Callable[[AbstractToolset[AgentDepsT]], None]) -> None:
        self.wrapped.apply(visitor)

    def visit_and_replace(
        self, visitor: Callable[[AbstractToolset[AgentDepsT]], AbstractToolset[AgentDepsT]]
    ) -> AbstractToolset[AgentDepsT]:
        return replace(self, wrapped=self.wrapped.visit_and_replace(visitor))
