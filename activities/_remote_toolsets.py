"""Toolsets that list their tools over the network (MCP servers), as a durable worker serves them.

In a workflow such a toolset is stood in for by one that lists the tools through an activity
(`agent.<agent>.toolset.<id>.list_tools`); its tools run in the tool activity like any other. On the worker,
every activity of an agent uses one live connection per server id, kept open between activities instead of
connecting (or starting a server process) for each one, reconnected if the server died, and closed when the
worker shuts down.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from agent._run_context import RunContext
from agent.exceptions import UserError
from agent.toolsets import AbstractToolset, ToolsetTool

if TYPE_CHECKING:
    from agent._mcp._pool import MCPConnectionPool

__all__ = ('RemoteToolsets', 'is_remote_toolset')


def is_remote_toolset(toolset: AbstractToolset[Any]) -> bool:
    """Whether listing `toolset`'s tools needs the network (an MCP server)."""
    # Only processes that created an MCP server have the module loaded: no need to import the MCP SDK otherwise.
    server_module = sys.modules.get('agent._mcp._server')
    return server_module is not None and isinstance(toolset, server_module.MCPServer)


class RemoteToolsets:
    """One agent's networked toolsets on a worker: a live connection per id, shared by its activities."""

    def __init__(self, agent_name: str, toolset: AbstractToolset[Any]) -> None:
        """Find the networked toolsets in `toolset` (the agent's assembled toolset).

        Raises:
            UserError: If one has no `id` (durable runs name its activities after it) or two share one.
        """
        self.agent_name = agent_name
        self._pool: MCPConnectionPool | None = None
        found: list[AbstractToolset[Any]] = []
        toolset.apply(lambda leaf: found.append(leaf) if is_remote_toolset(leaf) else None)
        if not found:
            return
        from agent._mcp._pool import MCPConnectionPool

        self._pool = MCPConnectionPool()
        for leaf in found:
            if leaf.id is None:
                raise UserError(
                    f'Agent {agent_name!r} has an MCP server without an id ({leaf!r}): durable runs name its '
                    "activities after the id, so pass id='...' when creating the server."
                )
            self._pool.add(leaf)  # pyright: ignore[reportArgumentType]

    @property
    def ids(self) -> list[str]:
        """The ids of the networked toolsets."""
        return self._pool.ids if self._pool is not None else []

    async def pooled(self, toolset: AbstractToolset[Any]) -> AbstractToolset[Any]:
        """`toolset` with each networked leaf swapped for the live connection of its id."""
        pool = self._pool
        if pool is None:
            return toolset
        connected = {server_id: await pool.connection(server_id) for server_id in pool.ids}

        def swap(leaf: AbstractToolset[Any]) -> AbstractToolset[Any]:
            if is_remote_toolset(leaf) and leaf.id in connected:
                return connected[leaf.id]
            return leaf

        return toolset.visit_and_replace(swap)

    async def get_tools(self, toolset_id: str, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """The tools of the networked toolset `toolset_id`, over its live connection."""
        assert self._pool is not None
        return await self._pool.run(toolset_id, lambda server: server.get_tools(ctx))

    async def get_instructions(self, toolset_id: str, ctx: RunContext[Any]) -> str | None:
        """The instructions the networked toolset `toolset_id` adds, as text (`None` if it adds none)."""
        assert self._pool is not None
        found = await self._pool.run(toolset_id, lambda server: server.get_instructions(ctx))
        return None if found is None else str(found)

    async def aclose(self) -> None:
        """Close every connection (stopping server processes)."""
        if self._pool is not None:
            await self._pool.aclose()
