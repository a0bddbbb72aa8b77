"""`load_mcp_servers`: build servers from a JSON configuration file in the common `mcpServers` format.

```json
{
  "mcpServers": {
    "time": {"command": "mcp-server-time", "args": ["--local-timezone", "${TZ:-UTC}"]},
    "docs": {"url": "https://docs.example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}
  }
}
```

An entry with a `command` runs a subprocess over stdio; an entry with a `url` connects over HTTP, with SSE when
the URL path ends in `/sse` (or `"type": "sse"`) and Streamable HTTP otherwise. Each server's `id` is its name.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal

import pydantic

from ._transports import MCPServerSSE, MCPServerStdio, MCPServerStreamableHTTP, is_sse_url

__all__ = ('MCPServerConfig', 'expand_env_vars', 'load_mcp_servers')

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


def load_mcp_servers(config_path: str | Path) -> list[MCPServerStdio | MCPServerStreamableHTTP | MCPServerSSE]:
    """Load MCP servers from a configuration file, expanding `${VAR}` and `${VAR:-default}` in its strings.

    Args:
        config_path: The path to the configuration file.

    Returns:
        The servers, in the order of the file, each with its name as `id`.

    Raises:
        FileNotFoundError: If the configuration file does not exist.
        pydantic.ValidationError: If the configuration does not match the schema.
        ValueError: If a referenced environment variable is not defined and has no default.
    """
    path = Path(config_path)
    if not path.is_file():
        raise FileNotFoundError(f'MCP server configuration file not found: {path}')
    raw = json.loads(path.read_text(encoding='utf-8'))
    config = MCPServerConfig.model_validate(expand_env_vars(raw))
    servers: list[MCPServerStdio | MCPServerStreamableHTTP | MCPServerSSE] = []
    for name, entry in config.mcp_servers.items():
        if isinstance(entry, _StdioEntry):
            servers.append(MCPServerStdio(entry.command, entry.args, entry.env, entry.cwd, id=name))
        elif _is_sse(entry):
            servers.append(MCPServerSSE(entry.url, headers=entry.headers, id=name))
        else:
            servers.append(MCPServerStreamableHTTP(entry.url, headers=entry.headers, id=name))
    return servers
