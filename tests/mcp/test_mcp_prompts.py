"""MCP prompts: listing them as `Prompt`s, rendering them as `PromptResult`s, and caching the list."""

from __future__ import annotations

import base64
from typing import Any

import mcp_types as types
import pytest
from mcp.server.lowlevel.server import Server as LowLevelServer
from mcp.server.mcpserver import Context, Image
from mcp.server.mcpserver import MCPServer as SDKServer
from mcp.server.mcpserver.prompts.base import AssistantMessage, Message, UserMessage

from agent.mcp import (
    EmbeddedResource,
    Icon,
    MCPError,
    Prompt,
    PromptArgument,
    PromptMessage,
    PromptResult,
    ResourceAnnotations,
    ResourceLink,
)
from agent.messages import BinaryImage, TextContent

from ._servers import PNG, InProcessServer


def build_prompt_app() -> SDKServer:
    app = SDKServer('prompts')

    @app.prompt(title='Code review', icons=[types.Icon(src='https://e.test/r.png', mime_type='image/png')])
    def review(code: str, style: str = 'terse') -> str:
        """Review some code."""
        return f'Please review ({style}): {code}'

    @app.prompt()
    def gallery() -> list[Message]:
        """Every kind of content."""
        annotated = types.TextContent(
            type='text', text='look', annotations=types.Annotations(priority=0.5), _meta={'k': 'v'}
        )
        contents = types.BlobResourceContents(
            uri='res://logo', blob=base64.b64encode(PNG).decode(), mime_type='image/png'
        )
        return [
            UserMessage(annotated),
            AssistantMessage(Image(data=PNG, format='png')),
            UserMessage(types.EmbeddedResource(type='resource', resource=contents)),
            UserMessage(types.ResourceLink(type='resource_link', name='readme', uri='res://readme', size=12)),
        ]

    @app.tool()
    async def add_prompt(ctx: Context) -> str:
        """Adds a prompt and tells the client the prompt list changed."""
        app.prompt(name='fresh')(lambda: 'fresh')
        await ctx.session.send_prompt_list_changed()
        return 'added'

    return app


async def test_prompts_are_listed_with_their_arguments_title_and_icons():
    prompts = await InProcessServer(build_prompt_app()).list_prompts()

    review = next(prompt for prompt in prompts if prompt.name == 'review')
    assert review == Prompt(
        name='review',
        title='Code review',
        description='Review some code.',
        arguments=[PromptArgument(name='code', required=True), PromptArgument(name='style', required=False)],
        icons=[Icon(src='https://e.test/r.png', mime_type='image/png')],
    )
    gallery = next(prompt for prompt in prompts if prompt.name == 'gallery')
    assert gallery.arguments is None


async def test_a_rendered_prompt_holds_its_messages_as_the_agents_content_types():
    result = await InProcessServer(build_prompt_app()).get_prompt('review', {'code': 'x = 1'})

    assert result == PromptResult(
        description='Review some code.',
        messages=[PromptMessage(role='user', content=TextContent('Please review (terse): x = 1'))],
    )


async def test_images_resources_and_links_in_a_prompt_keep_their_kind_and_annotations():
    result = await InProcessServer(build_prompt_app()).get_prompt('gallery')

    text, image, embedded, link = (message.content for message in result.messages)
    assert [message.role for message in result.messages] == ['user', 'assistant', 'user', 'user']
    assert text == TextContent(
        'look', metadata={'mcp_annotations': ResourceAnnotations(priority=0.5), 'mcp_meta': {'k': 'v'}}
    )
    assert image == BinaryImage(PNG, media_type='image/png')
    assert embedded == EmbeddedResource(
        uri='res://logo', content=BinaryImage(PNG, media_type='image/png'), mime_type='image/png'
    )
    assert link == ResourceLink(uri='res://readme', name='readme', size=12)


async def test_rendering_an_unknown_prompt_raises_mcp_error():
    with pytest.raises(MCPError, match='Unknown prompt'):
        await InProcessServer(build_prompt_app()).get_prompt('nope')


async def test_the_prompt_list_is_cached_until_the_server_says_it_changed():
    server = InProcessServer(build_prompt_app())

    async with server:
        before = [prompt.name for prompt in await server.list_prompts()]
        assert await server.list_prompts() == await server.list_prompts()
        assert await server.direct_call_tool('add_prompt', {}) == 'added'
        after = [prompt.name for prompt in await server.list_prompts()]

    assert 'fresh' not in before
    assert 'fresh' in after


async def test_without_cache_prompts_every_listing_asks_the_server():
    app = build_prompt_app()
    server = InProcessServer(app, cache_prompts=False)

    async with server:
        await server.list_prompts()
        # Added without a notification: only a server that is asked again sees it.
        app.prompt(name='silent')(lambda: 'silent')
        names = [prompt.name for prompt in await server.list_prompts()]

    assert 'silent' in names


async def test_with_cache_prompts_a_silent_change_is_not_seen_until_the_server_is_reentered():
    app = build_prompt_app()
    server = InProcessServer(app)

    async with server:
        await server.list_prompts()
        app.prompt(name='silent')(lambda: 'silent')
        cached = [prompt.name for prompt in await server.list_prompts()]
    async with server:
        fresh = [prompt.name for prompt in await server.list_prompts()]

    assert 'silent' not in cached
    assert 'silent' in fresh


def bare_server() -> InProcessServer:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[])

    return InProcessServer(LowLevelServer('bare', on_list_tools=list_tools))


async def test_a_server_without_prompts_lists_none_and_refuses_to_render_one():
    server = bare_server()

    async with server:
        assert server.capabilities.prompts is False
        assert await server.list_prompts() == []
        with pytest.raises(MCPError, match='offers no prompts') as caught:
            await server.get_prompt('review')

    assert caught.value.code == types.METHOD_NOT_FOUND


async def test_a_server_without_resources_lists_none():
    server = bare_server()

    async with server:
        assert await server.list_resources() == []
        assert await server.list_resource_templates() == []
