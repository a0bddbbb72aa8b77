"""The HTTP transports, Streamable HTTP and SSE, against SDK servers served on loopback."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx2
import pytest

from agent.exceptions import ModelRetry, UserError
from agent.mcp import MCPError, MCPServerHTTP, MCPServerSSE, MCPServerStreamableHTTP
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models.function import AgentInfo, FunctionModel

from ._servers import build_app, serve_http


@pytest.fixture
async def streamable_url() -> AsyncIterator[str]:
    app, _ = build_app()
    async with serve_http(app.streamable_http_app()) as base:
        yield f'{base}/mcp'


@pytest.fixture
async def sse_url() -> AsyncIterator[str]:
    app, _ = build_app()
    async with serve_http(app.sse_app()) as base:
        yield f'{base}/sse'


async def test_streamable_http_server_connects_and_calls_tools(streamable_url: str):
    async with MCPServerStreamableHTTP(streamable_url) as server:
        assert server.server_info.name == 'everything'
        assert await server.direct_call_tool('greet', {'name': 'Ada'}) == 'Hello, Ada!'
        assert await server.read_resource('res://readme') == 'Read me first.'


async def test_streamable_http_sends_the_configured_headers(streamable_url: str):
    server = MCPServerStreamableHTTP(streamable_url, headers={'x-team': 'blue'})

    assert await server.direct_call_tool('headers', {}) == {'x-team': 'blue'}


async def test_streamable_http_uses_a_custom_http_client_and_leaves_it_open(streamable_url: str):
    async with httpx2.AsyncClient(headers={'x-team': 'green'}) as client:
        server = MCPServerStreamableHTTP(streamable_url, http_client=client)

        assert await server.direct_call_tool('headers', {}) == {'x-team': 'green'}
        assert await server.direct_call_tool('headers', {}) == {'x-team': 'green'}
        assert not client.is_closed


@pytest.mark.filterwarnings('ignore::mcp.MCPDeprecationWarning')  # the server samples through a 2025-era call
async def test_sampling_requests_travel_back_over_streamable_http(streamable_url: str):
    model = FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart('tl;dr')]), model_name='m')

    server = MCPServerStreamableHTTP(streamable_url, sampling_model=model)

    assert await server.direct_call_tool('summarize', {'text': 'long'}) == 'm: tl;dr'


async def test_sse_server_connects_and_calls_tools(sse_url: str):
    async with MCPServerSSE(sse_url) as server:
        assert server.capabilities.tools
        assert await server.direct_call_tool('add', {'a': 2, 'b': 3}) == 5
        assert [resource.uri for resource in await server.list_resources()] == ['res://readme', 'res://logo']


async def test_the_http_alias_uses_the_sse_transport(sse_url: str):
    assert issubclass(MCPServerHTTP, MCPServerSSE)
    assert await MCPServerHTTP(sse_url).direct_call_tool('greet', {'name': 'Bo'}) == 'Hello, Bo!'


async def test_sse_sends_the_configured_headers(sse_url: str):
    assert await MCPServerSSE(sse_url, headers={'x-team': 'red'}).direct_call_tool('headers', {}) == {'x-team': 'red'}


async def test_sse_borrows_a_custom_http_client_across_connections(sse_url: str):
    async with httpx2.AsyncClient(headers={'x-team': 'gold'}) as client:
        server = MCPServerSSE(sse_url, http_client=client)

        for _ in range(2):
            assert await server.direct_call_tool('headers', {}) == {'x-team': 'gold'}
        assert not client.is_closed


def test_headers_and_an_http_client_together_are_a_user_error():
    with pytest.raises(UserError, match='`headers` or `http_client`'):
        MCPServerStreamableHTTP('http://127.0.0.1:1/mcp', headers={'a': 'b'}, http_client=httpx2.AsyncClient())


async def test_an_agent_uses_a_streamable_http_server_as_its_toolset(streamable_url: str):
    from agent import Agent

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(','.join(sorted(tool.name for tool in info.function_tools)[:2]))])

    agent = Agent(FunctionModel(respond), toolsets=[MCPServerStreamableHTTP(streamable_url, tool_prefix='remote')])

    assert (await agent.run('which tools?')).output == 'remote_add,remote_ask_name'


async def test_sse_read_timeout_is_the_deprecated_name_of_read_timeout(sse_url: str):
    with pytest.warns(DeprecationWarning, match='`sse_read_timeout` is deprecated'):
        server = MCPServerSSE(sse_url, sse_read_timeout=0.5)

    assert server.read_timeout == 0.5
    # A stream silent for that long is stale: the request times out, or the stream is dropped under it.
    with pytest.raises((ModelRetry, MCPError), match=r'timed out|Connection closed'):
        await server.direct_call_tool('stall', {})


def test_read_timeout_and_sse_read_timeout_together_are_a_type_error():
    with pytest.raises(TypeError, match='`read_timeout` only'):
        MCPServerStreamableHTTP('http://127.0.0.1:1/mcp', read_timeout=1, sse_read_timeout=2)


@pytest.mark.parametrize('transport', [MCPServerStreamableHTTP, MCPServerSSE])
def test_http_servers_read_for_five_minutes_by_default(transport: type[MCPServerSSE | MCPServerStreamableHTTP]):
    assert transport('http://127.0.0.1:1/mcp').read_timeout == 300
