"""`PreparedToolset`: passes a toolset's tool definitions through a prepare function each step."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import cast

from agent._run_context import RunContext
from agent._threads import call_maybe_async
from agent._tool import AgentDepsT, ToolsPrepareFunc
from agent._tool_def import ToolDefinition
from agent.exceptions import UserError

from .abstract import ToolsetTool
from .wrapper import WrapperToolset

__all__ = ('PreparedToolset',)


@dataclass
class PreparedToolset(WrapperToolset[AgentDepsT]):
    """Lets a function modify or drop the wrapped toolset's tool definitions for each run step."""

    prepare_func: ToolsPrepareFunc[AgentDepsT]
    """Gets the run context and the tool definitions, sync or async, and returns the definitions to offer
    (`None` offers none). It may change definitions, but not rename tools or add new ones."""

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The wrapped toolset's tools, with the definitions the prepare function returned.

        Raises:
            UserError: If the prepare function renamed a tool or added one.
        """
        tools = await self.wrapped.get_tools(ctx)
        original_defs = [tool.tool_def for tool in tools.values()]
        prepared = cast('list[ToolDefinition] | None', await call_maybe_async(self.prepare_func, ctx, original_defs))
        result: dict[str, ToolsetTool[AgentDepsT]] = {}
        for tool_def in prepared or []:
            if tool_def.name not in tools:
                raise UserError(
                    f'The prepare function of {self.label} returned a tool named {tool_def.name!r} that the '
                    'toolset does not have; it may change or drop tool definitions, but not rename or add tools.'
                )
            result[tool_def.name] = replace(tools[tool_def.name], toolset=self, tool_def=tool_def)
        return result
