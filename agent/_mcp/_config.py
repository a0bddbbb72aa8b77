"""`load_mcp_servers` and `load_mcp_toolsets`: servers from a JSON configuration file in the `mcpServers` format.

```json
{
  "mcpServers": {
    "time": {"command": "mcp-server-time", "args": ["--local-timezone", "${TZ:-UTC}"]},
    "docs": {"url": "https://docs.example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}
  }
}
```

An entry with a `command` runs a subprocess over stdio; an entry with a `url` connects over HTTP, with SSE when
the URL path ends in `/sse` (or `"type": "sse"`) and Streamable HTTP otherwise. Each server's `id` is its name,
and its tools are offered with the name as prefix (`time_get_current_time`), so two servers' tools never clash:
`load_mcp_servers` sets the name as the server's `tool_prefix`, `load_mcp_toolsets` wraps the server in a
`PrefixedToolset` instead (the server itself then reports its tools unprefixed).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal

import pydantic

from agent.toolsets.abstract import AbstractToolset

from ._transports import MCPServerSSE, MCPServerStdio, MCPServerStreamableHTTP, is_sse_url

__all__ = ('MCPServerConfig', 'expand_env_vars', 'load_mcp_servers', 'load_mcp_toolsets')

_ENV_VAR = re.compile(r'\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}')


class _StdioEntry(pydantic.BaseModel, extra='forbid'):
    type: Literal['stdio'] | None = None
    command: str
    args: list[str] = []
    env: dict[str, str] | None = None
    cwd: str | None = None


class _HTTPEntry(pydantic.BaseModel, extra='forbid'):
    type: Literal['sse', 'http', 'streamable-http'] | None = None
    url: str
    headers: dict[str, str] | None = None


class MCPServerConfig(pydantic.BaseModel):
    """Configuration for MCP servers: the `mcpServers` mapping of a configuration file."""

    mcp_servers: dict[str, _StdioEntry | _HTTPEntry] = pydantic.Field(alias='mcpServers')
    """The servers by name."""


def expand_env_vars(value: Any) -> Any:
    """Replace `${VAR}` and `${VAR:-default}` in every string inside `value` (dicts and lists are walked).

    Raises:
        ValueError: If a variable is not set and has no default.
    """
    if isinstance(value, str):

        def substitute(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            if name in os.environ:
                return os.environ[name]
            if default is not None:
                return default
            raise ValueError(f'Environment variable {name!r} is not defined and `${{{name}}}` has no default')

        return _ENV_VAR.sub(substitute, value)
    if isinstance(value, dict):
        return {key: expand_env_vars(item) for key, item in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return [expand_env_vars(item) for item in value]  # pyright: ignore[reportUnknownVariableType]
    return value


def _is_sse(entry: _HTTPEntry) -> bool:
    return entry.type == 'sse' if entry.type is not None else is_sse_url(entry.url)


def _read_config(config_path: str | Path) -> MCPServerConfig:
    path = Path(config_path)
    if not path.is_file():
        raise FileNotFoundError(f'MCP server configuration file not found: {path}')
    raw = json.loads(path.read_text(encoding='utf-8'))
    return MCPServerConfig.model_validate(expand_env_vars(raw))


def _server(
    name: str, entry: _StdioEntry | _HTTPEntry, tool_prefix: str | None
) -> MCPServerStdio | MCPServerStreamableHTTP | MCPServerSSE:
    if isinstance(entry, _StdioEntry):
        return MCPServerStdio(entry.command, entry.args, entry.env, entry.cwd, tool_prefix=tool_prefix, id=name)
    transport = MCPServerSSE if _is_sse(entry) else MCPServerStreamableHTTP
    return transport(entry.url, headers=entry.headers, tool_prefix=tool_prefix, id=name)


def load_mcp_servers(config_path: str | Path) -> list[MCPServerStdio | MCPServerStreamableHTTP | MCPServerSSE]:
    """Load MCP servers from a configuration file, expanding `${VAR}` and `${VAR:-default}` in its strings.

    Args:
        config_path: The path to the configuration file.

    Returns:
        The servers, in the order of the file, each with its name as `id` and as `tool_prefix`.

    Raises:
        FileNotFoundError: If the configuration file does not exist.
        pydantic.ValidationError: If the configuration does not match the schema.
        ValueError: If a referenced environment variable is not defined and has no default.
    """
    config = _read_config(config_path)
    return [_server(name, entry, tool_prefix=name) for name, entry in config.mcp_servers.items()]


def load_mcp_toolsets(config_path: str | Path) -> list[AbstractToolset[Any]]:
    """Load MCP servers from a configuration file as toolsets, each offering its tools prefixed with its name.

    The file and its `${VAR}` expansion are the same as for `load_mcp_servers`.

    Args:
        config_path: The path to the configuration file.

    Returns:
        One toolset per server, in the order of the file: the server (its name as `id`) wrapped in a
        `PrefixedToolset` with its name as prefix.

    Raises:
        FileNotFoundError: If the configuration file does not exist.
        pydantic.ValidationError: If the configuration does not match the schema.
        ValueError: If a referenced environment variable is not defined and has no default.
    """
    config = _read_config(config_path)
    return [_server(name, entry, tool_prefix=None).prefixed(name) for name, entry in config.mcp_servers.items()]
