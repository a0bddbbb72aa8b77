"""A small MCP server the tests run as a subprocess over stdio (built with the MCP SDK's server API)."""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer

app = MCPServer('stdio-test', instructions='A server in a subprocess.', version='0.1.0')


@app.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@app.tool()
def env_var(name: str) -> str:
    """The value of an environment variable, or `<unset>`."""
    return os.environ.get(name, '<unset>')


@app.tool()
def cwd() -> str:
    """The server's working directory."""
    return os.getcwd()


@app.tool(structured_output=False)
def echo(text: str) -> str:
    """Echo the text."""
    return text


if __name__ == '__main__':
    app.run('stdio')
