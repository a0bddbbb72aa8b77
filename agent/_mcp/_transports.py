"""The ready-made transports: a subprocess over stdio, Streamable HTTP and the older HTTP+SSE."""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import AsyncGenerator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TextIO, cast

import httpx2
import mcp_types
from mcp.client._transport import TransportStreams
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from agent.exceptions import UserError

from ._server import MCPServer
from ._types import ElicitationFnT, LoggingFnT, ProcessToolCallback

if TYPE_CHECKING:
    from agent.models import Model

__all__ = ('MCPServerHTTP', 'MCPServerSSE', 'MCPServerStdio', 'MCPServerStreamableHTTP', 'is_sse_url', 'server_for_url')


class MCPServerStdio(MCPServer):
    """Runs an MCP server in a subprocess and talks to it over its stdin/stdout (the MCP stdio transport).

    ```python
    from agent import Agent
    from agent.mcp import MCPServerStdio

    server = MCPServerStdio('uv', args=['run', 'mcp-run-python', 'stdio'], timeout=10)
    agent = Agent('openai:gpt-5.2', toolsets=[server])
    ```
    """

    command: str
    """The command to run."""
    args: Sequence[str]
    """The arguments to pass to the command."""
    env: dict[str, str] | None
    """Environment variables for the subprocess.

    The parent's environment is not inherited: the subprocess sees only these variables plus the MCP SDK's
    minimal safe set (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`), which it needs to find and run the
    command. Pass `env=dict(os.environ)` to inherit everything, deliberately.
    """
    cwd: str | Path | None
    """The working directory of the subprocess."""

    def __init__(
        self,
        command: str,
        args: Sequence[str],
        env: dict[str, str] | None = None,
        cwd: str | Path | None = None,
        *,
        tool_prefix: str | None = None,
        log_level: mcp_types.LoggingLevel | None = None,
        log_handler: LoggingFnT | None = None,
        timeout: float = 5,
        read_timeout: float = 5 * 60,
        process_tool_call: ProcessToolCallback | None = None,
        allow_sampling: bool = True,
        sampling_model: Model | None = None,
        max_retries: int = 1,
        elicitation_callback: ElicitationFnT | None = None,
        cache_prompts: bool = True,
        cache_tools: bool = True,
        cache_resources: bool = True,
        include_instructions: bool = False,
        include_return_schema: bool | None = None,
        id: str | None = None,
        client_info: mcp_types.Implementation | None = None,
    ) -> None:
        """Build a server that runs `command` with `args`; the options are described on the attributes."""
        self.command = command
        self.args = args
        self.env = env
        self.cwd = cwd
        super().__init__(
            tool_prefix=tool_prefix,
            log_level=log_level,
            log_handler=log_handler,
            timeout=timeout,
            read_timeout=read_timeout,
            process_tool_call=process_tool_call,
            allow_sampling=allow_sampling,
            sampling_model=sampling_model,
            max_retries=max_retries,
            elicitation_callback=elicitation_callback,
            cache_prompts=cache_prompts,
            cache_tools=cache_tools,
            cache_resources=cache_resources,
            include_instructions=include_instructions,
            include_return_schema=include_return_schema,
            id=id,
            client_info=client_info,
        )

    @asynccontextmanager
    async def client_streams(self) -> AsyncGenerator[TransportStreams]:
        """Start the subprocess and yield the streams over its stdin/stdout."""
        params = StdioServerParameters(command=self.command, args=list(self.args), env=self.env, cwd=self.cwd)
        # The server's stderr goes to ours as it is at connect time (the SDK's default is fixed at import), or
        # to ours as the process started when the current one is not a real file (captured, a notebook).
        async with stdio_client(params, errlog=_stderr_file()) as streams:
            yield streams

    def __repr__(self) -> str:
        return f'{type(self).__name__}(command={self.command!r}, args={list(self.args)!r}, id={self.id!r})'


class _BorrowedClient:
    """Lends a caller's HTTP client to a transport that closes what it opens, without letting it close it."""

    def __init__(self, client: httpx2.AsyncClient) -> None:
        self._client = client

    async def __aenter__(self) -> httpx2.AsyncClient:
        return self._client

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None


class _MCPServerHTTP(MCPServer):
    """An MCP server reached over HTTP."""

    url: str
    """The URL of the server's MCP endpoint."""
    headers: dict[str, str] | None
    """HTTP headers sent with every request (e.g. authorization); not combinable with `http_client`."""
    http_client: httpx2.AsyncClient | None
    """An HTTP client to use instead of a fresh one per connection; the caller keeps ownership of it."""

    def __init__(
        self,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        http_client: httpx2.AsyncClient | None = None,
        tool_prefix: str | None = None,
        log_level: mcp_types.LoggingLevel | None = None,
        log_handler: LoggingFnT | None = None,
        timeout: float = 5,
        read_timeout: float | None = None,
        process_tool_call: ProcessToolCallback | None = None,
        allow_sampling: bool = True,
        sampling_model: Model | None = None,
        max_retries: int = 1,
        elicitation_callback: ElicitationFnT | None = None,
        cache_prompts: bool = True,
        cache_tools: bool = True,
        cache_resources: bool = True,
        include_instructions: bool = False,
        include_return_schema: bool | None = None,
        id: str | None = None,
        client_info: mcp_types.Implementation | None = None,
        sse_read_timeout: float | None = None,
    ) -> None:
        """Build a server reached at `url`; the options are described on the attributes.

        `read_timeout` defaults to 5 minutes; `sse_read_timeout` is its deprecated former name.

        Raises:
            UserError: If both `headers` and `http_client` are given.
            TypeError: If both `read_timeout` and `sse_read_timeout` are given.
        """
        if headers is not None and http_client is not None:
            raise UserError('Pass `headers` or `http_client`, not both: set the headers on the HTTP client instead.')
        if sse_read_timeout is not None:
            if read_timeout is not None:
                raise TypeError('Pass `read_timeout` only: `sse_read_timeout` is its deprecated former name.')
            warnings.warn('`sse_read_timeout` is deprecated: use `read_timeout`.', DeprecationWarning, stacklevel=2)
            read_timeout = sse_read_timeout
        self.url = url
        self.headers = headers
        self.http_client = http_client
        super().__init__(
            tool_prefix=tool_prefix,
            log_level=log_level,
            log_handler=log_handler,
            timeout=timeout,
            read_timeout=5 * 60 if read_timeout is None else read_timeout,
            process_tool_call=process_tool_call,
            allow_sampling=allow_sampling,
            sampling_model=sampling_model,
            max_retries=max_retries,
            elicitation_callback=elicitation_callback,
            cache_prompts=cache_prompts,
            cache_tools=cache_tools,
            cache_resources=cache_resources,
            include_instructions=include_instructions,
            include_return_schema=include_return_schema,
            id=id,
            client_info=client_info,
        )

    def _new_http_client(
        self, headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, auth: Any = None
    ) -> httpx2.AsyncClient:
        timeout = timeout or httpx2.Timeout(self.timeout, read=self.read_timeout)
        return httpx2.AsyncClient(headers=headers or self.headers, timeout=timeout, auth=auth)

    def __repr__(self) -> str:
        return f'{type(self).__name__}(url={self.url!r}, id={self.id!r})'


class MCPServerStreamableHTTP(_MCPServerHTTP):
    """An MCP server reached over the Streamable HTTP transport.

    ```python
    from agent import Agent
    from agent.mcp import MCPServerStreamableHTTP

    server = MCPServerStreamableHTTP('http://localhost:8000/mcp')
    agent = Agent('openai:gpt-5.2', toolsets=[server])
    ```
    """

    @asynccontextmanager
    async def client_streams(self) -> AsyncGenerator[TransportStreams]:
        """Open the Streamable HTTP session and yield its streams."""
        async with AsyncExitStack() as stack:
            client = self.http_client or await stack.enter_async_context(self._new_http_client())
            async with streamable_http_client(self.url, http_client=client) as streams:
                yield streams


class MCPServerSSE(_MCPServerHTTP):
    """An MCP server reached over the HTTP+SSE transport (MCP 2024-11-05).

    ```python
    from agent import Agent
    from agent.mcp import MCPServerSSE

    server = MCPServerSSE('http://localhost:3001/sse')
    agent = Agent('openai:gpt-5.2', toolsets=[server])
    ```
    """

    @asynccontextmanager
    async def client_streams(self) -> AsyncGenerator[TransportStreams]:
        """Open the SSE stream and yield the session's streams."""
        borrowed = self.http_client
        if borrowed is not None:

            def factory(headers: Any = None, timeout: Any = None, auth: Any = None) -> httpx2.AsyncClient:
                # The transport enters whatever the factory returns; this one yields the caller's client.
                return cast(httpx2.AsyncClient, _BorrowedClient(borrowed))

        else:
            factory = self._new_http_client
        async with sse_client(
            self.url, timeout=self.timeout, sse_read_timeout=self.read_timeout, httpx_client_factory=factory
        ) as streams:
            yield streams


class MCPServerHTTP(MCPServerSSE):
    """An MCP server reached over HTTP with the older SSE transport (the same as `MCPServerSSE`).

    ```python
    from agent import Agent
    from agent.mcp import MCPServerHTTP

    server = MCPServerHTTP('http://localhost:3001/sse')
    agent = Agent('openai:gpt-5.2', toolsets=[server])
    ```
    """


def is_sse_url(url: str) -> bool:
    """Whether a URL names an HTTP+SSE endpoint: its path ends in `/sse`."""
    path = url.split('?', 1)[0].split('#', 1)[0]
    return path.rstrip('/').endswith('/sse')


def server_for_url(
    url: str, *, headers: dict[str, str] | None = None, id: str | None = None
) -> MCPServerSSE | MCPServerStreamableHTTP:
    """A server for `url`, with the transport the URL implies: SSE for a `/sse` path, Streamable HTTP otherwise."""
    transport = MCPServerSSE if is_sse_url(url) else MCPServerStreamableHTTP
    return transport(url, headers=headers, id=id)


def _stderr_file() -> TextIO:
    try:
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return sys.__stderr__ if sys.__stderr__ is not None else open(os.devnull, 'w')
    return sys.stderr
