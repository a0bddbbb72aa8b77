"""The `MCP` capability: the provider's native MCP where supported, a direct connection (by URL) otherwise."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from agent import Agent, UserError
from agent.builtin_tools import MCPServerTool
from agent.capabilities import MCP, PrefixTools
from agent.mcp import MCPServer, MCPServerSSE, MCPServerStreamableHTTP
from agent.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models import ModelProfile
from agent.models.function import AgentInfo, FunctionModel
from agent.toolsets import AbstractToolset
from tests._agent_helpers import parts_of

from ._servers import build_app, serve_http


@pytest.fixture
async def mcp_url() -> AsyncIterator[str]:
    app, _ = build_app()
    async with serve_http(app.streamable_http_app()) as base:
        yield f'{base}/mcp'


@pytest.fixture
async def sse_url() -> AsyncIterator[str]:
    app, _ = build_app()
    async with serve_http(app.sse_app()) as base:
        yield f'{base}/sse'


class Recorder:
    """A model that calls one tool (if given), then answers; records the tools each request offered."""

    def __init__(self, tool: str | None = None, args: dict[str, Any] | None = None, *, native: bool = False):
        self.tool, self.args = tool, args or {}
        self.function_tools: list[list[str]] = []
        self.native_tools: list[list[Any]] = []
        profile = ModelProfile(supported_native_tools=frozenset({'mcp_server'} if native else set()))
        self.model = FunctionModel(self.respond, profile=profile)

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.function_tools.append(sorted(tool.name for tool in info.function_tools))
        self.native_tools.append(list(info.model_request_parameters.native_tools))
        if self.tool is not None and len(self.function_tools) == 1:
            return ModelResponse(parts=[ToolCallPart(self.tool, self.args)])
        return ModelResponse(parts=[TextPart('done')])


def leaf_servers(toolset: AbstractToolset[Any] | None) -> list[MCPServer]:
    found: list[MCPServer] = []
    assert toolset is not None
    toolset.apply(lambda leaf: found.append(leaf) if isinstance(leaf, MCPServer) else None)
    return found


def test_the_transport_of_the_direct_connection_follows_the_url():
    [sse] = leaf_servers(MCP(url='https://mcp.example.com/sse').local_toolset())
    [streamable] = leaf_servers(MCP(url='https://mcp.example.com/api').local_toolset())

    assert type(sse) is MCPServerSSE
    assert type(streamable) is MCPServerStreamableHTTP
    assert streamable.id == 'mcp_example_com_api'


async def test_without_native_mcp_the_model_gets_the_servers_tools_directly(mcp_url: str):
    recorder = Recorder('greet', {'name': 'Ada'})
    agent = Agent(recorder.model, capabilities=[MCP(url=mcp_url)])

    result = await agent.run('greet Ada')

    assert 'greet' in recorder.function_tools[0]
    assert recorder.native_tools[0] == []
    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == 'Hello, Ada!'


async def test_a_model_with_native_mcp_gets_the_native_tool_instead(mcp_url: str):
    recorder = Recorder(native=True)
    agent = Agent(recorder.model, capabilities=[MCP(url=mcp_url, id='docs', authorization_token='t0k')])

    await agent.run('hi')

    assert recorder.function_tools == [[]]
    [native] = recorder.native_tools[0]
    assert isinstance(native, MCPServerTool)
    assert (native.id, native.url, native.authorization_token) == ('docs', mcp_url, 't0k')


async def test_prefix_tools_namespaces_the_servers_tools(mcp_url: str, sse_url: str):
    recorder = Recorder('api1_add', {'a': 2, 'b': 5})
    capabilities = [PrefixTools(MCP(url=mcp_url), prefix='api1'), PrefixTools(MCP(url=sse_url), prefix='api2')]
    agent = Agent(recorder.model, capabilities=capabilities)

    result = await agent.run('add')

    names = recorder.function_tools[0]
    assert {'api1_greet', 'api2_greet'} <= set(names)
    assert 'greet' not in names
    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == 7


async def test_the_prefix_tools_shortcut_does_the_same(mcp_url: str):
    recorder = Recorder('mcp_greet', {'name': 'Bo'})
    agent = Agent(recorder.model, capabilities=[MCP(url=mcp_url).prefix_tools('mcp')])

    result = await agent.run('greet')

    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == 'Hello, Bo!'


async def test_allowed_tools_limit_the_direct_connection_too(mcp_url: str):
    recorder = Recorder()
    agent = Agent(recorder.model, capabilities=[MCP(url=mcp_url, allowed_tools=['greet', 'add'])])

    await agent.run('hi')

    assert recorder.function_tools == [['add', 'greet']]


async def test_headers_and_the_authorization_token_reach_the_server(mcp_url: str):
    recorder = Recorder('headers')
    capability = MCP(url=mcp_url, headers={'x-team': 'blue'}, authorization_token='secret')
    agent = Agent(recorder.model, capabilities=[capability])

    result = await agent.run('show headers')

    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == {
        'x-team': 'blue',
        'authorization': 'Bearer secret',
    }


async def test_local_false_on_a_model_without_native_mcp_is_a_user_error(mcp_url: str):
    agent = Agent(Recorder().model, capabilities=[MCP(url=mcp_url, local=False)])

    with pytest.raises(UserError, match=r'MCP\(local=False\) only uses the native'):
        await agent.run('hi')


async def test_builtin_false_uses_the_direct_connection_even_with_native_support(mcp_url: str):
    recorder = Recorder(native=True)
    agent = Agent(recorder.model, capabilities=[MCP(url=mcp_url, builtin=False)])

    await agent.run('hi')

    assert recorder.native_tools == [[]]
    assert 'greet' in recorder.function_tools[0]


async def test_an_agent_spec_builds_the_capability_and_its_prefix(mcp_url: str):
    recorder = Recorder('docs_greet', {'name': 'Spec'})
    spec = {
        'model': 'test',
        'capabilities': [
            {'PrefixTools': {'capability': {'MCP': {'url': mcp_url, 'allowed_tools': ['greet']}}, 'prefix': 'docs'}}
        ],
    }
    agent = Agent.from_spec(spec)

    result = await agent.run('greet', model=recorder.model)

    assert recorder.function_tools[0] == ['docs_greet']
    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == 'Hello, Spec!'


def test_a_spec_with_an_unknown_mcp_field_is_a_user_error():
    with pytest.raises(UserError, match="Failed to instantiate capability 'MCP': nope"):
        Agent.from_spec({'model': 'test', 'capabilities': [{'MCP': {'url': 'https://h/mcp', 'nope': 1}}]})


async def test_a_local_url_connects_directly_there_while_the_provider_gets_the_public_one(mcp_url: str):
    recorder = Recorder('greet', {'name': 'Lin'})
    cap = MCP(url='https://mcp.example.com/api', local=mcp_url, id='docs')
    [native] = cap.get_native_tools()
    assert isinstance(native, MCPServerTool)
    assert native.url == 'https://mcp.example.com/api'

    result = await Agent(recorder.model, capabilities=[cap]).run('greet Lin')

    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == 'Hello, Lin!'
    with pytest.raises(UserError, match=r"MCP\(local='docs-server'\) must be an `http\(s\)://` URL"):
        MCP(url=mcp_url, local='docs-server')
