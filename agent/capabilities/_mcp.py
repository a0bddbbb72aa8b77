"""`MCP`: a remote MCP server's tools, through the provider's native MCP support or a direct connection."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from agent._run_context import RunContext
from agent._tool import AgentDepsT
from agent._tool_def import ToolDefinition
from agent.builtin_tools import AbstractBuiltinTool, MCPServerTool
from agent.exceptions import UserError

from ._builtin_or_local import BuiltinOrLocalTool, LocalTool

__all__ = ('MCP',)


@dataclass(kw_only=True)
class MCP(BuiltinOrLocalTool[AgentDepsT]):
    """Gives the model an MCP server's tools: the provider connects to it where the model supports native MCP
    (`MCPServerTool`), the agent connects to it directly otherwise.

    ```python
    MCP(url='https://mcp.example.com/api')                  # native, or a direct connection
    MCP(url='https://mcp.example.com/sse')                  # the direct connection uses SSE for a /sse path
    MCP(url='https://mcp.example.com/api').prefix_tools('mcp')  # tools offered as mcp_<name>
    ```

    The direct connection picks its transport from the URL: HTTP+SSE when the path ends in `/sse`, Streamable
    HTTP otherwise. `allowed_tools` and the authorization token apply on both sides. `local='https://...'`
    connects directly to another URL than the one the provider is given (e.g. an internal address).
    """

    url: str
    """The server's URL."""
    id: str | None = None
    """A name for the server (unique among a request's MCP servers); derived from the URL when not given."""
    authorization_token: str | None = None
    """A token sent in the `Authorization` header (as a bearer token on the direct connection)."""
    headers: dict[str, str] | None = None
    """Extra HTTP headers sent to the server."""
    allowed_tools: list[str] | None = None
    """If set, the only tools of the server the model may use."""
    description: str | None = None
    """What the server offers, for the model (native side)."""

    @property
    def server_id(self) -> str:
        """The server's id: `id`, or one derived from the URL's host and path (stable, for durable runs)."""
        if self.id is not None:
            return self.id
        parts = urlsplit(self.url)
        return re.sub(r'[^A-Za-z0-9]+', '_', parts.netloc + parts.path).strip('_') or 'mcp'

    def default_builtin(self) -> AbstractBuiltinTool | None:
        return MCPServerTool(
            id=self.server_id,
            url=self.url,
            authorization_token=self.authorization_token,
            description=self.description,
            allowed_tools=self.allowed_tools,
            headers=self.headers,
        )

    def default_local(self) -> LocalTool | None:
        return self._direct_connection(self.url)

    def local_strategy(self, name: str) -> LocalTool:
        if urlsplit(name).scheme not in ('http', 'https'):
            raise UserError(
                f'MCP(local={name!r}) must be an `http(s)://` URL to connect to directly; '
                'for another connection, pass local=<an MCP server toolset>'
            )
        return self._direct_connection(name)

    def _direct_connection(self, url: str) -> LocalTool:
        # Imported here: the MCP SDK is only loaded by agents that connect to a server themselves.
        from agent._mcp._transports import server_for_url

        headers = dict(self.headers or {})
        if self.authorization_token is not None:
            headers['Authorization'] = f'Bearer {self.authorization_token}'
        server = server_for_url(url, headers=headers or None, id=self.server_id)
        if self.allowed_tools is None:
            return server
        allowed = set(self.allowed_tools)

        def is_allowed(ctx: RunContext[Any], tool_def: ToolDefinition) -> bool:
            return tool_def.name in allowed

        return server.filtered(is_allowed)

    @classmethod
    def from_spec(
        cls,
        *,
        url: str,
        id: str | None = None,
        authorization_token: str | None = None,
        headers: dict[str, str] | None = None,
        allowed_tools: list[str] | None = None,
        description: str | None = None,
        builtin: bool = True,
        native: bool | None = None,
        local: bool | str | None = None,
        defer_loading: bool = False,
    ) -> MCP[Any]:
        """Build from a spec entry (the fields, with `builtin` (or `native`) as a boolean and `local` as a boolean
        or the URL to connect to directly)."""
        return cls(
            url=url,
            id=id,
            authorization_token=authorization_token,
            headers=headers,
            allowed_tools=allowed_tools,
            description=description,
            builtin=builtin,
            native=native,
            local=local,
            defer_loading=defer_loading,
        )
