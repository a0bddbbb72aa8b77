"""MCP servers for the tests, built with the MCP SDK's server API, and ways to reach them.

`build_app()` is an SDK server with tools of every result shape, resources, a template, a prompt, and tools
that make the server sample, elicit, log and change its tool and resource lists. `InProcessServer` connects
to such an app in memory; `serve_http` serves one on loopback for the HTTP transports; `STDIO_SERVER` is a
script that runs one as a subprocess.
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.lowlevel.server import Server as LowLevelServer
from mcp.server.mcpserver import Context, Image
from mcp.server.mcpserver import MCPServer as SDKServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.memory import create_client_server_memory_streams
from pydantic import BaseModel
from starlette.applications import Starlette

from agent.mcp import MCPServer

STDIO_SERVER = Path(__file__).with_name('stdio_server.py')
"""A script serving a small SDK server over stdio: `python stdio_server.py`."""

PNG = bytes.fromhex('89504e470d0a1a0a')
"""Bytes standing in for an image."""


class Forecast(BaseModel):
    city: str
    celsius: int


class Name(BaseModel):
    name: str


class AppState:
    """What the test app recorded: the log level the client set."""

    def __init__(self) -> None:
        self.log_level: types.LoggingLevel | None = None


_LEVELS: list[types.LoggingLevel] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']


def build_app(*, instructions: str | None = 'Use the tools wisely.') -> tuple[SDKServer, AppState]:
    """A fresh app (its tool and resource lists change during some tests) and its recorded state."""
    app = SDKServer('everything', instructions=instructions, version='1.2.3')
    state = AppState()

    @app.tool(structured_output=False)
    def greet(name: str) -> str:
        """Greet someone."""
        return f'Hello, {name}!'

    @app.tool(annotations=types.ToolAnnotations(read_only_hint=True), meta={'category': 'math'})
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @app.tool()
    def forecast(city: str) -> Forecast:
        """The weather in a city."""
        return Forecast(city=city, celsius=21)

    @app.tool()
    def pixel() -> Image:
        """An image."""
        return Image(data=PNG, format='png')

    @app.tool(structured_output=False)
    def text_and_image() -> list[types.TextContent | types.ImageContent]:
        """A caption and an image."""
        data = base64.b64encode(PNG).decode()
        return [
            types.TextContent(type='text', text='a caption'),
            types.ImageContent(type='image', data=data, mime_type='image/png'),
        ]

    @app.tool(structured_output=False)
    def embedded() -> types.EmbeddedResource:
        """A resource embedded in the result."""
        contents = types.TextResourceContents(uri='res://inline', text='inline text', mime_type='text/plain')
        return types.EmbeddedResource(type='resource', resource=contents)

    @app.tool(structured_output=False)
    def linked() -> types.ResourceLink:
        """A link to the readme resource."""
        return types.ResourceLink(type='resource_link', name='readme', uri='res://readme')

    @app.tool()
    def fail(reason: str) -> str:
        """Always fails."""
        raise ToolError(f'failed because {reason}')

    @app.tool()
    async def summarize(text: str, ctx: Context) -> str:
        """Asks the client's model for a summary."""
        result = await ctx.session.create_message(
            [types.SamplingMessage(role='user', content=types.TextContent(type='text', text=text))],
            max_tokens=50,
            system_prompt='Summarize.',
            temperature=0.5,
        )
        assert isinstance(result.content, types.TextContent)
        return f'{result.model}: {result.content.text}'

    @app.tool()
    async def ask_name(ctx: Context) -> str:
        """Asks the user for their name."""
        answer = await ctx.elicit('What is your name?', schema=Name)
        return f'Hi {answer.data.name}' if answer.action == 'accept' else f'no name ({answer.action})'

    @app.tool()
    async def chatty(ctx: Context) -> str:
        """Logs at two levels, honouring the level the client set."""
        threshold = _LEVELS.index(state.log_level or 'debug')
        messages: list[tuple[types.LoggingLevel, str]] = [('debug', 'details'), ('warning', 'careful')]
        for level, text in messages:
            if _LEVELS.index(level) >= threshold:
                await ctx.log(level, text, logger_name='chatty')
        return 'done'

    @app.tool()
    async def grow(ctx: Context) -> str:
        """Adds a tool and a resource, and tells the client its lists changed."""
        app.add_tool(lambda: 'new', name='fresh_tool', description='Added at runtime.')
        app.resource('res://fresh', name='fresh')(lambda: 'fresh')
        await ctx.session.send_tool_list_changed()
        await ctx.session.send_resource_list_changed()
        return 'grown'

    @app.tool()
    def client(ctx: Context) -> str:
        """How the client introduced itself."""
        params = ctx.session.client_params
        return f'{params.client_info.name} {params.client_info.version}' if params else 'anonymous'

    @app.tool()
    async def stall() -> str:
        """Never answers."""
        await anyio.Event().wait()
        return 'unreachable'

    @app.tool()
    def meta(ctx: Context) -> dict[str, Any]:
        """The `_meta` of the request."""
        return dict(ctx.request_context.meta or {})

    @app.tool()
    def headers(ctx: Context) -> dict[str, str]:
        """The HTTP headers of the request."""
        return {k: v for k, v in (ctx.headers or {}).items() if k.startswith('x-') or k == 'authorization'}

    @app.resource(
        'res://readme', name='readme', title='Read me', description='How to use this.', mime_type='text/plain'
    )
    def readme() -> str:
        return 'Read me first.'

    @app.resource('res://logo', name='logo', mime_type='image/png')
    def logo() -> bytes:
        return PNG

    @app.resource('res://items/{name}', name='item', description='An item by name.')
    def item(name: str) -> str:
        return f'item {name}'

    @app.prompt()
    def review(code: str) -> str:
        """Review some code."""
        return f'Please review: {code}'

    lowlevel = app._lowlevel_server

    async def set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
        state.log_level = params.level
        return types.EmptyResult()

    lowlevel.add_request_handler('logging/setLevel', types.SetLevelRequestParams, set_level)

    read_entry = lowlevel.get_request_handler('resources/read')
    assert read_entry is not None

    async def read(ctx: Any, params: types.ReadResourceRequestParams) -> Any:
        # A resource with two contents, which the high-level API cannot express.
        if params.uri == 'res://bundle':
            return types.ReadResourceResult(
                contents=[
                    types.TextResourceContents(uri=params.uri, text='part one', mime_type='text/plain'),
                    types.BlobResourceContents(
                        uri=params.uri, blob=base64.b64encode(PNG).decode(), mime_type='image/png'
                    ),
                ]
            )
        return await read_entry.handler(ctx, params)

    lowlevel.add_request_handler('resources/read', types.ReadResourceRequestParams, read)
    return app, state


class InProcessServer(MCPServer):
    """Connects to an SDK app (or a bare low-level SDK server) in memory, through the same session code as the real
    transports."""

    def __init__(self, app: SDKServer | LowLevelServer, **options: Any) -> None:
        super().__init__(**options)
        self.app = app
        self.connections_opened = 0

    @asynccontextmanager
    async def client_streams(self) -> AsyncIterator[Any]:
        self.connections_opened += 1
        lowlevel = self.app if isinstance(self.app, LowLevelServer) else self.app._lowlevel_server
        notifications = NotificationOptions(prompts_changed=True, tools_changed=True, resources_changed=True)
        options = lowlevel.create_initialization_options(notifications)
        async with (
            create_client_server_memory_streams() as (client_streams, (server_read, server_write)),
            anyio.create_task_group() as tg,
        ):
            tg.start_soon(lowlevel.run, server_read, server_write, options)
            try:
                yield client_streams
            finally:
                # The end of its input stops the server, which lets the task group finish.
                await client_streams[1].aclose()
                await server_write.aclose()


@asynccontextmanager
async def serve_http(app: Starlette) -> AsyncIterator[str]:
    """Serve `app` on a loopback port for the duration; yields the base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(('127.0.0.1', 0))
    # Listening before uvicorn starts: connections queue until it accepts them, so nothing has to wait here.
    sock.listen(16)
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, lifespan='on', log_level='warning', ws='none', timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f'http://127.0.0.1:{port}'
    finally:
        server.should_exit = True
        await task
        sock.close()


def stdio_command() -> tuple[str, list[str]]:
    """The command running `STDIO_SERVER` with this interpreter."""
    return sys.executable, [str(STDIO_SERVER)]


async def server_pid(server: MCPServer) -> int:
    """The process id of a server running `STDIO_SERVER`."""
    result = await server.direct_call_tool('pid', {})
    assert isinstance(result, int)
    return result


def alive(pid: int) -> bool:
    """Whether a process exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
