"""Caching of the tool and resource lists: kept until the server says they changed or the last context exits."""

from __future__ import annotations

import anyio

from agent.mcp import MCPServer

from ._servers import InProcessServer, build_app


async def tool_names(server: MCPServer) -> set[str]:
    return {tool.name for tool in await server.list_tools()}


async def resource_uris(server: MCPServer) -> set[str]:
    return {resource.uri for resource in await server.list_resources()}


async def test_the_tool_list_is_cached_while_the_server_is_entered():
    app, _ = build_app()
    server = InProcessServer(app)

    async with server:
        await server.list_tools()
        app.add_tool(lambda: 'psst', name='sneaky')

        assert 'sneaky' not in await tool_names(server)


async def test_without_tool_caching_every_listing_asks_the_server():
    app, _ = build_app()
    server = InProcessServer(app, cache_tools=False)

    async with server:
        await server.list_tools()
        app.add_tool(lambda: 'psst', name='sneaky')

        assert 'sneaky' in await tool_names(server)


async def test_a_tools_list_changed_notification_drops_the_cached_tool_list():
    app, _ = build_app()
    server = InProcessServer(app)

    async with server:
        assert 'fresh_tool' not in await tool_names(server)
        assert await server.direct_call_tool('grow', {}) == 'grown'

        # The notification is handled concurrently with the tool's response: wait (bounded) for it to land.
        with anyio.fail_after(5):
            while 'fresh_tool' not in await tool_names(server):
                await anyio.lowlevel.checkpoint()


async def test_the_last_exit_drops_the_cached_lists():
    app, _ = build_app()
    server = InProcessServer(app)

    async with server:
        await server.list_tools()
        await server.list_resources()
    app.add_tool(lambda: 'psst', name='sneaky')
    app.resource('res://sneaky', name='sneaky')(lambda: 'psst')

    async with server:
        assert 'sneaky' in await tool_names(server)
        assert 'res://sneaky' in await resource_uris(server)


async def test_the_resource_list_is_cached_until_a_resources_list_changed_notification():
    app, _ = build_app()
    server = InProcessServer(app)

    async with server:
        await server.list_resources()
        app.resource('res://sneaky', name='sneaky')(lambda: 'psst')
        assert 'res://sneaky' not in await resource_uris(server)

        await server.direct_call_tool('grow', {})
        with anyio.fail_after(5):
            while 'res://fresh' not in await resource_uris(server):
                await anyio.lowlevel.checkpoint()
        assert 'res://sneaky' in await resource_uris(server)


async def test_without_resource_caching_every_listing_asks_the_server():
    app, _ = build_app()
    server = InProcessServer(app, cache_resources=False)

    async with server:
        await server.list_resources()
        app.resource('res://sneaky', name='sneaky')(lambda: 'psst')

        assert 'res://sneaky' in await resource_uris(server)
