"""`SetToolMetadata`: merges metadata onto the agent's tools (all, or those a selector picks)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from agent._run_context import RunContext
from agent._tool import AgentDepsT, ToolSelector, matches_tool_selector
from agent._tool_def import ToolDefinition
from agent.toolsets import AbstractToolset, PreparedToolset

from ._abstract import AbstractCapability

__all__ = ('SetToolMetadata',)


@dataclass(init=False)
class SetToolMetadata(AbstractCapability[AgentDepsT]):
    """Merges key-value pairs over the metadata of the selected tools (these keys win).

    ```python
    agent = Agent('openai:gpt-5.2', capabilities=[SetToolMetadata(tools=['delete_file'], dangerous=True)])
    ```

    It wraps the run's toolset rather than using a hook, so in a durable run the metadata is on the tools both
    in the workflow (where filters and `prepare` functions see it) and in the tool activity.
    """

    tools: ToolSelector[AgentDepsT]
    """Which tools: `'all'`, a list of names, a metadata dict to match, or a function of (ctx, tool_def)."""
    metadata: dict[str, Any] = field(default_factory=dict[str, Any])
    """The key-value pairs to set."""

    def __init__(self, *, tools: ToolSelector[AgentDepsT] = 'all', **metadata: Any) -> None:
        """Set `metadata` (the keyword arguments) on the tools `tools` selects."""
        self.tools = tools
        self.metadata = metadata

    def get_wrapper_toolset(self, toolset: AbstractToolset[AgentDepsT]) -> AbstractToolset[AgentDepsT] | None:
        selector, metadata = self.tools, self.metadata

        async def set_metadata(ctx: RunContext[AgentDepsT], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
            return [
                replace(td, metadata={**(td.metadata or {}), **metadata})
                if await matches_tool_selector(selector, ctx, td)
                else td
                for td in tool_defs
            ]

        return PreparedToolset(toolset, set_metadata)
