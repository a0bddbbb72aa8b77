"""MCP resources and resource templates."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest

from agent.mcp import MCPError, Resource, ResourceTemplate
from agent.messages import BinaryImage

from ._servers import PNG, InProcessServer, build_app


def make_server(**options: Any) -> InProcessServer:
    app, _ = build_app()
    return InProcessServer(app, **options)


async def test_list_resources_returns_the_servers_resources():
    resources = await make_server().list_resources()

    assert resources == [
        Resource(
            name='readme', title='Read me', description='How to use this.', mime_type='text/plain', uri='res://readme'
        ),
        Resource(name='logo', description='', mime_type='image/png', uri='res://logo'),
    ]


async def test_list_resource_templates_returns_the_uri_templates():
    assert await make_server().list_resource_templates() == [
        ResourceTemplate(
            name='item', description='An item by name.', mime_type='text/plain', uri_template='res://items/{name}'
        )
    ]


async def test_read_resource_returns_text_for_a_text_resource():
    assert await make_server().read_resource('res://readme') == 'Read me first.'


async def test_read_resource_returns_binary_content_for_a_blob():
    assert await make_server().read_resource('res://logo') == BinaryImage(PNG, media_type='image/png')


async def test_read_resource_returns_a_list_when_a_resource_has_several_contents():
    assert await make_server().read_resource('res://bundle') == ['part one', BinaryImage(PNG, media_type='image/png')]


async def test_read_resource_accepts_a_listed_resource_and_an_expanded_template():
    server = make_server()

    async with server:
        readme = (await server.list_resources())[0]
        assert await server.read_resource(readme) == 'Read me first.'
        assert await server.read_resource('res://items/lamp') == 'item lamp'


async def test_reading_an_unknown_resource_raises_mcp_error_with_the_server_code():
    with pytest.raises(MCPError) as caught:
        await make_server().read_resource('res://missing')

    assert caught.value.code == types.INVALID_PARAMS
    assert caught.value.message == 'Unknown resource: res://missing'
    assert caught.value.data == {'uri': 'res://missing'}
