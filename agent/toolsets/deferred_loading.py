"""`DeferredLoadingToolset`: hides a toolset's tools from the model until tool search reveals them."""

from __future__ import annotations

from dataclasses import dataclass, replace

from agent._run_context import RunContext
from agent._tool import AgentDepsT

from .abstract import ToolsetTool
from .wrapper import WrapperToolset

__all__ = ('DeferredLoadingToolset',)


@dataclass
class DeferredLoadingToolset(WrapperToolset[AgentDepsT]):
    """Marks the wrapped toolset's tools (all, or those named) with `defer_loading=True`."""

    tool_names: frozenset[str] | None = None
    """The names of the tools to hide; `None` hides all of them."""

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The wrapped toolset's tools, the selected ones marked for deferred loading."""
        tools = await self.wrapped.get_tools(ctx)
        return {
            name: replace(
                tool,
                toolset=self,
                tool_def=replace(tool.tool_def, defer_loading=True)
                if self.tool_names is None or name in self.tool_names
                else tool.tool_def,
            )
            for name, tool in tools.items()
        }
