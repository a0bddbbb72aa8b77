"""`FilteredToolset`: offers only the tools of a toolset that pass a predicate."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from agent._run_context import RunContext
from agent._tool import AgentDepsT
from agent._tool_def import ToolDefinition

from .abstract import ToolsetTool
from .wrapper import WrapperToolset

__all__ = ('FilteredToolset',)


@dataclass
class FilteredToolset(WrapperToolset[AgentDepsT]):
    """Offers only the wrapped toolset's tools for which `filter_func(ctx, tool_def)` is true."""

    filter_func: Callable[[RunContext[AgentDepsT], ToolDefinition], bool | Awaitable[bool]]
    """The predicate, sync or async. It is called directly (not in a worker thread), so it should be cheap."""

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The wrapped toolset's tools that pass the filter."""
        tools: dict[str, ToolsetTool[AgentDepsT]] = {}
        for name, tool in (await self.wrapped.get_tools(ctx)).items():
            keep = self.filter_func(ctx, tool.tool_def)
            if inspect.isawaitable(keep):
                keep = await keep
            if keep:
                tools[name] = replace(tool, toolset=self)
        return tools
