"""The toolsets capabilities contribute, tagged with the capability that owns them.

`CombinedCapability.get_toolset` wraps each capability's toolset in a `CapabilityOwnedToolset`. Its tools carry
the owner's run id in `ToolDefinition.capability_id`. While the owner is deferred and not loaded, its tools are
marked `defer_loading=True` and the model request leaves them out (see `Model.prepare_request`), its toolset's
instructions stay out of the request (they come with the `load_capability` result instead) and a call of one of
its tools is sent back to the model as a retry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from agent.exceptions import ModelRetry

from .abstract import AbstractToolset, ToolsetInstructions, ToolsetTool
from .wrapper import WrapperToolset

if TYPE_CHECKING:
    from agent._run_context import RunContext
    from agent._tool import AgentDepsT
    from agent.capabilities import AbstractCapability
else:
    from agent._tool import AgentDepsT

__all__ = ('CapabilityOwnedToolset', 'resolve_capability_id')


def resolve_capability_id(ctx: RunContext[Any], capability: AbstractCapability[Any]) -> str:
    """The id under which `capability` (this very instance) is registered in `ctx.capabilities`.

    A capability without an explicit `id` is registered under one derived from its class name, so the id only
    exists as the key of that mapping.

    Raises:
        LookupError: when the capability is not one of the run's.
    """
    for capability_id, registered in ctx.capabilities.items():
        if registered is capability:
            return capability_id
    raise LookupError(f'{capability!r} is not one of the capabilities of this run')


def _hidden(capability: AbstractCapability[Any], ctx: RunContext[Any]) -> bool:
    return capability.defer_loading is True and capability.id not in ctx.loaded_capability_ids


@dataclass
class CapabilityOwnedToolset(WrapperToolset[AgentDepsT]):
    """A capability's toolset, whose tools name the capability and stay hidden while it is not loaded."""

    capability: AbstractCapability[AgentDepsT]
    """The capability that contributed the wrapped toolset."""

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The wrapped toolset's tools, tagged with the owner's id (and hidden while it is not loaded)."""
        try:
            owner_id: str | None = resolve_capability_id(ctx, self.capability)
        except LookupError:
            # Outside a run's registry (e.g. a toolset asked for its tools directly): the explicit id, if any.
            owner_id = self.capability.id
        hidden = _hidden(self.capability, ctx)
        tools: dict[str, ToolsetTool[AgentDepsT]] = {}
        for name, tool in (await self.wrapped.get_tools(ctx)).items():
            tool_def = tool.tool_def
            tool_def = replace(
                tool_def,
                capability_id=tool_def.capability_id if tool_def.capability_id is not None else owner_id,
                defer_loading=hidden or tool_def.defer_loading,
            )
            tools[name] = replace(tool, toolset=self, tool_def=tool_def)
        return tools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call the tool, unless its capability is still waiting to be loaded."""
        if _hidden(self.capability, ctx):
            raise ModelRetry(
                f'Tool {name!r} belongs to the capability {self.capability.id!r}, which is not loaded: '
                'call `load_capability` with its id first.'
            )
        return await self.wrapped.call_tool(name, tool_args, ctx, tool)

    async def get_instructions(self, ctx: RunContext[AgentDepsT]) -> ToolsetInstructions:
        """The wrapped toolset's instructions; none for a deferred capability (its load result carries them)."""
        if self.capability.defer_loading is True:
            return None
        return await self.wrapped.get_instructions(ctx)

    def apply(self, visitor: Callable[[AbstractToolset[AgentDepsT]], None]) -> None:
        """Visit this toolset (so the loader can find a capability's toolsets), then the wrapped one."""
        visitor(self)
        self.wrapped.apply(visitor)
