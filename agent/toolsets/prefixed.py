"""`PrefixedToolset`: offers a toolset's tools under prefixed names, e.g. to avoid clashes between toolsets."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from agent._run_context import RunContext
from agent._tool import AgentDepsT
from agent.exceptions import UserError

from .abstract import ToolsetTool
from .wrapper import WrapperToolset

__all__ = ('PrefixedToolset',)


@dataclass
class PrefixedToolset(WrapperToolset[AgentDepsT]):
    """Offers the wrapped toolset's tools as `f'{prefix}_{name}'`."""

    prefix: str
    """The prefix, joined to each tool name with an underscore."""

    @property
    def tool_name_conflict_hint(self) -> str:
        """Advice for a clash of a prefixed name."""
        return 'Change the `prefix` attribute to avoid name conflicts.'

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The wrapped toolset's tools, with prefixed names."""
        tools: dict[str, ToolsetTool[AgentDepsT]] = {}
        for name, tool in (await self.wrapped.get_tools(ctx)).items():
            new_name = f'{self.prefix}_{name}'
            tools[new_name] = replace(tool, toolset=self, tool_def=replace(tool.tool_def, name=new_name))
        return tools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call the wrapped toolset's tool under its original name."""
        prefix = f'{self.prefix}_'
        if not name.startswith(prefix):
            raise UserError(f'Tool {name!r} does not start with the prefix {prefix!r} of {self.label}')
        original = name.removeprefix(prefix)
        inner_tool = replace(tool, tool_def=replace(tool.tool_def, name=original))
        return await self.wrapped.call_tool(original, tool_args, ctx, inner_tool)
