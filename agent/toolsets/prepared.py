"""`PreparedToolset`: passes a toolset's tool definitions through a prepare function each step."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import cast

from agent._run_context import RunContext
from agent._threads import call_maybe_async
from agent._tool import AgentDepsT, ToolsPrepareFunc
from agent._tool_def import ToolDefinition
from agent._warnings import PydanticAIDeprecationWarning
from agent.exceptions import UserError

from .abstract import ToolsetTool
from .wrapper import WrapperToolset

__all__ = ('PreparedToolset',)


@dataclass
class PreparedToolset(WrapperToolset[AgentDepsT]):
    """Lets a function modify or drop the wrapped toolset's tool definitions for each run step."""

    prepare_func: ToolsPrepareFunc[AgentDepsT]
    """Gets the run context and the tool definitions, sync or async, and returns the definitions to offer
    (returning `None` is deprecated: it offers none, with a warning). It may change definitions, but not rename
    tools or add new ones."""

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The wrapped toolset's tools, with the definitions the prepare function returned.

        Raises:
            UserError: If the prepare function renamed a tool or added one.
        """
        tools = await self.wrapped.get_tools(ctx)
        original_defs = [tool.tool_def for tool in tools.values()]
        prepared = cast('list[ToolDefinition] | None', await call_maybe_async(self.prepare_func, ctx, original_defs))
        if prepared is None:
            name = getattr(self.prepare_func, '__qualname__', repr(self.prepare_func))
            warnings.warn(
                f'The prepare callback {name!r} returned `None`: returning `None` from a prepare callback is '
                'deprecated; it hides every tool for this step. Return `[]` to hide them all, or the definitions it '
                'was given to keep them.',
                PydanticAIDeprecationWarning,
                stacklevel=2,
            )
        result: dict[str, ToolsetTool[AgentDepsT]] = {}
        for tool_def in prepared or []:
            if tool_def.name not in tools:
                raise UserError(
                    'Prepare function cannot add or rename tools. Use `FunctionToolset.add_function()` or '
                    f'`RenamedToolset` instead. (The prepare function of {self.label} returned a tool named '
                    f'{tool_def.name!r} that the toolset does not have.)'
                )
            result[tool_def.name] = replace(tools[tool_def.name], toolset=self, tool_def=tool_def)
        return result
