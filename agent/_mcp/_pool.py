"""`MCPConnectionPool`: a worker's live MCP connections, one per server id, reused across calls.

A durable worker runs each MCP operation of a workflow (list the tools, call one, read a resource) as a
separate activity. Connecting for every activity would start a stdio server process per tool call, so the
worker keeps each server entered between activities instead, and closes them all when it shuts down.

A server that died in the meantime (its process exited, its HTTP stream dropped) is reconnected before the next
operation, and an operation that fails because the connection closed under it is run once more on a fresh
connection. That retry makes a call at-least-once, as activities are anyway.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

import anyio
import mcp_types

from agent.exceptions import UserError

from ._server import MCPServer
from ._types import MCPError

__all__ = ('MCPConnectionPool',)

_T = TypeVar('_T')


def _connection_lost(error: BaseException) -> bool:
    if isinstance(error, MCPError):
        return error.code == mcp_types.CONNECTION_CLOSED
    return isinstance(error, anyio.ClosedResourceError | anyio.BrokenResourceError | anyio.EndOfStream)


class MCPConnectionPool:
    """Keeps one live connection per MCP server id, reconnecting dead ones, until closed.

    ```python
    pool = MCPConnectionPool([MCPServerStdio('mcp-server-time', [], id='time')])
    async with pool:
        result = await pool.run('time', lambda server: server.direct_call_tool('get_current_time', {...}))
    ```
    """

    def __init__(self, servers: Iterable[MCPServer] = ()) -> None:
        """Create a pool of the given servers (connected on first use).

        Raises:
            UserError: If a server has no `id`, or two servers share one.
        """
        self._servers: dict[str, MCPServer] = {}
        self._connected: set[str] = set()
        self._locks: dict[str, asyncio.Lock] = {}
        for server in servers:
            self.add(server)

    def add(self, server: MCPServer) -> None:
        """Register a server under its `id`.

        Raises:
            UserError: If the server has no `id`, or another server has the same one.
        """
        if server.id is None:
            raise UserError(f'{server!r} needs an `id` to be pooled: pass `id=...` when creating it.')
        if server.id in self._servers and self._servers[server.id] is not server:
            raise UserError(f'Two MCP servers share the id {server.id!r}; ids must be unique.')
        self._servers[server.id] = server

    @property
    def ids(self) -> list[str]:
        """The ids of the registered servers."""
        return list(self._servers)

    def server(self, server_id: str) -> MCPServer:
        """The server registered under `server_id`.

        Raises:
            UserError: If no server has that id.
        """
        try:
            return self._servers[server_id]
        except KeyError:
            known = ', '.join(sorted(self._servers)) or 'none'
            raise UserError(f'No MCP server with id {server_id!r} in the pool (known: {known}).') from None

    def _lock(self, server_id: str) -> asyncio.Lock:
        lock = self._locks.get(server_id)
        if lock is None:
            lock = self._locks[server_id] = asyncio.Lock()
        return lock

    async def connection(self, server_id: str) -> MCPServer:
        """The server under `server_id`, connected: the live connection, or a new one if there is none or it died.

        Raises:
            UserError: If no server has that id.
        """
        server = self.server(server_id)
        async with self._lock(server_id):
            if server_id not in self._connected:
                await server.__aenter__()
                self._connected.add(server_id)
            elif not server.is_running:
                # Entering a server replaces a dead connection; the pool's own entry keeps the new one open.
                async with server:
                    pass
        return server

    async def run(self, server_id: str, operation: Callable[[MCPServer], Awaitable[_T]]) -> _T:
        """Run `operation` on the connected server, reconnecting and retrying once if the connection was lost.

        Args:
            server_id: The id of the server.
            operation: The operation, e.g. `lambda server: server.list_tools()`.

        Raises:
            UserError: If no server has that id.
        """
        server = await self.connection(server_id)
        try:
            return await operation(server)
        except Exception as error:
            if not _connection_lost(error):
                raise
        # Concurrent operations that lost the same connection find it replaced by whichever got here first.
        return await operation(await self.connection(server_id))

    async def aclose(self) -> None:
        """Close every connection (stopping server processes); the pool can be used again afterwards."""
        connected, self._connected = self._connected, set()
        errors: list[BaseException] = []
        for server_id in sorted(connected):
            try:
                await self._servers[server_id].__aexit__(None, None, None)
            except Exception as error:
                errors.append(error)
        if errors:
            raise errors[0]

    async def __aenter__(self) -> MCPConnectionPool:
        return self

    async def __aexit__(self, *args: Any) -> None:
        await self.aclose()
