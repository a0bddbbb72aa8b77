"""`IncludeToolReturnSchemas`: send tools' return schemas to the model unless a tool says otherwise."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from agent._run_context import RunContext
from agent._tool import AgentDepsT, ToolSelector, matches_tool_selector
from agent._tool_def import ToolDefinition

from ._abstract import AbstractCapability

__all__ = ('IncludeToolReturnSchemas',)


@dataclass
class IncludeToolReturnSchemas(AbstractCapability[AgentDepsT]):
    """Makes `include_return_schema=None` mean `True` for the selected tools.

    A tool's return schema is then sent to the model: as a structured field where the model accepts one,
    in the description otherwise. Tools that set `include_return_schema=False` still keep theirs back.
    """

    tools: ToolSelector[AgentDepsT] = 'all'
    """Which tools: `'all'`, a list of names, a metadata dict to match, or a function of (ctx, tool_def)."""

    async def prepare_tools(self, ctx: RunContext[AgentDepsT], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        prepared: list[ToolDefinition] = []
        for tool_def in tool_defs:
            if tool_def.include_return_schema is None and await matches_tool_selector(self.tools, ctx, tool_def):
                tool_def = replace(tool_def, include_return_schema=True)
            prepared.append(tool_def)
        return prepared

    @classmethod
    def from_spec(
        cls,
        tools: Literal['all'] | list[str] | dict[str, Any] = 'all',
        *,
        id: str | None = None,
        description: str | None = None,
        defer_loading: bool = False,
    ) -> IncludeToolReturnSchemas[Any]:
        """Build from a spec entry (a tool selector written as data, and the capability's id fields)."""
        return cls(tools=tools, id=id, description=description, defer_loading=defer_loading)
