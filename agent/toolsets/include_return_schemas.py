"""`IncludeReturnSchemasToolset`: sends the return schemas of a toolset's tools to the model."""

from __future__ import annotations

from dataclasses import dataclass, replace

from agent._run_context import RunContext
from agent._tool import AgentDepsT

from .abstract import ToolsetTool
from .wrapper import WrapperToolset

__all__ = ('IncludeReturnSchemasToolset',)


@dataclass
class IncludeReturnSchemasToolset(WrapperToolset[AgentDepsT]):
    """Makes `include_return_schema=None` mean `True` for the wrapped toolset's tools.

    The toolset-level counterpart of the `IncludeToolReturnSchemas` capability: a tool that sets
    `include_return_schema=False` keeps its schema back.
    """

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The wrapped toolset's tools, each sending its return schema unless it opted out."""
        tools = await self.wrapped.get_tools(ctx)
        return {
            name: replace(
                tool,
                toolset=self,
                tool_def=tool.tool_def
                if tool.tool_def.include_return_schema is not None
                else replace(tool.tool_def, include_return_schema=True),
            )
            for name, tool in tools.items()
        }
