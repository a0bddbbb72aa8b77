"""`RenamedToolset`: offers some of a toolset's tools under other names."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from agent._run_context import RunContext
from agent._tool import AgentDepsT
from agent.exceptions import UserError

from .abstract import ToolsetTool
from .wrapper import WrapperToolset

__all__ = ('RenamedToolset',)


@dataclass
class RenamedToolset(WrapperToolset[AgentDepsT]):
    """Renames tools of the wrapped toolset; tools not mentioned keep their names."""

    name_map: dict[str, str]
    """Maps each new name to the original name of the tool."""

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The wrapped toolset's tools, renamed.

        Raises:
            UserError: If two tools would end up with the same name.
        """
        new_names = {original: new for new, original in self.name_map.items()}
        tools: dict[str, ToolsetTool[AgentDepsT]] = {}
        for name, tool in (await self.wrapped.get_tools(ctx)).items():
            if name in new_names:
                new_name = new_names[name]
            elif name in self.name_map:
                # Calls to this name are routed to the tool renamed to it, so this one could never be called.
                raise UserError(
                    f'{self.label} renames {self.name_map[name]!r} to {name!r}, '
                    f'which clashes with the existing tool {name!r}; rename that one too.'
                )
            else:
                new_name = name
            if new_name in tools:
                raise UserError(f'{self.label} renames two tools to {new_name!r}; give them distinct names.')
            tools[new_name] = replace(tool, toolset=self, tool_def=replace(tool.tool_def, name=new_name))
        return tools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call the wrapped toolset's tool under its original name."""
        original = self.name_map.get(name, name)
        inner_tool = replace(tool, tool_def=replace(tool.tool_def, name=original))
        return await self.wrapped.call_tool(original, tool_args, ctx, inner_tool)
