"""`SetMetadataToolset`: merges metadata onto every tool of a toolset."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from agent._run_context import RunContext
from agent._tool import AgentDepsT

from .abstract import ToolsetTool
from .wrapper import WrapperToolset

__all__ = ('SetMetadataToolset',)


@dataclass
class SetMetadataToolset(WrapperToolset[AgentDepsT]):
    """Merges `metadata` over the metadata of each of the wrapped toolset's tools (these keys win).

    Metadata is not sent to the model; filters, `prepare` functions, hooks and approval policies read it.
    """

    metadata: dict[str, Any] = field(default_factory=dict[str, Any])
    """The key-value pairs to set on every tool."""

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The wrapped toolset's tools with the metadata merged in."""
        tools = await self.wrapped.get_tools(ctx)
        return {
            name: replace(
                tool,
                toolset=self,
                tool_def=replace(tool.tool_def, metadata={**(tool.tool_def.metadata or {}), **self.metadata}),
            )
            for name, tool in tools.items()
        }
