"""The MCP examples of the seeds (the `mcp` API reference and the capabilities guide), after the import rename.

Each example is built as written (hosted model names and example URLs included, with a placeholder API key and
no request made); then the same code runs with the URL or command of a server the test starts, and a scripted
model in place of the hosted one. The example of the `agent.mcp` module docstring is built too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from agent import Agent
from agent.capabilities import MCP, PrefixTools
from agent.mcp import MCPServerHTTP, MCPServerSSE, MCPServerStdio, MCPServerStreamableHTTP
from agent.messages import ToolReturnPart
from tests._agent_helpers import call, parts_of, scripted, text

from ._servers import build_app, serve_http, stdio_command


@pytest.fixture(autouse=True)
def placeholder_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('OPENAI_API_KEY', 'placeholder')
    monkeypatch.setenv('ANTHROPIC_API_KEY', 'placeholder')


@pytest.fixture
async def base_url() -> AsyncIterator[str]:
    app, _ = build_app()
    async with serve_http(app.streamable_http_app()) as base:
        yield base


@pytest.fixture
async def sse_base_url() -> AsyncIterator[str]:
    app, _ = build_app()
    async with serve_http(app.sse_app()) as base:
        yield base


async def test_mcp_server_stdio_example():
    server = MCPServerStdio('uv', args=['run', 'mcp-run-python', 'stdio'], timeout=10)
    agent = Agent('openai:gpt-5.2', toolsets=[server])
    assert server in agent.toolsets

    command, args = stdio_command()
    server = MCPServerStdio(command, args=args, timeout=60)
    agent = Agent('openai:gpt-5.2', toolsets=[server])
    result = await agent.run('echo hi', model=scripted(call('echo', {'text': 'hi'}), text('It said hi.')))

    assert result.output == 'It said hi.'
    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == 'hi'


@pytest.mark.parametrize('server_class', [MCPServerSSE, MCPServerHTTP])
async def test_mcp_server_sse_and_http_examples(server_class: type[MCPServerSSE], sse_base_url: str):
    server = server_class('http://localhost:3001/sse')
    agent = Agent('openai:gpt-5.2', toolsets=[server])
    assert server in agent.toolsets

    server = server_class(f'{sse_base_url}/sse')
    agent = Agent('openai:gpt-5.2', toolsets=[server])
    result = await agent.run('greet', model=scripted(call('greet', {'name': 'SSE'}), text('ok')))

    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == 'Hello, SSE!'


async def test_mcp_server_streamable_http_example(base_url: str):
    server = MCPServerStreamableHTTP('http://localhost:8000/mcp')
    agent = Agent('openai:gpt-5.2', toolsets=[server])
    assert server in agent.toolsets

    server = MCPServerStreamableHTTP(f'{base_url}/mcp')
    agent = Agent('openai:gpt-5.2', toolsets=[server])
    result = await agent.run('add', model=scripted(call('add', {'a': 20, 'b': 22}), text('42')))

    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == 42


async def test_capabilities_guide_mcp_examples(base_url: str, sse_base_url: str):
    Agent('anthropic:claude-sonnet-4-6', capabilities=[MCP(url='https://mcp.example.com/api')])
    assert MCP(url='https://mcp.example.com/api', local=False).local_toolset() is None
    assert MCP(url='https://mcp.example.com/api', builtin=False).builtin_tool() is None
    Agent(
        'openai:gpt-5.2',
        capabilities=[
            PrefixTools(MCP(url='https://api1.example.com'), prefix='api1'),
            PrefixTools(MCP(url='https://api2.example.com'), prefix='api2'),
        ],
    )
    assert isinstance(MCP(url='https://mcp.example.com/api').prefix_tools('mcp'), PrefixTools)

    agent = Agent(
        'openai:gpt-5.2',
        capabilities=[
            PrefixTools(MCP(url=f'{base_url}/mcp'), prefix='api1'),
            PrefixTools(MCP(url=f'{sse_base_url}/sse'), prefix='api2'),
        ],
    )
    model = scripted(call('api1_greet', {'name': 'one'}), call('api2_greet', {'name': 'two'}), text('both'))
    result = await agent.run('greet twice', model=model)

    assert [part.content for part in parts_of(result.all_messages(), ToolReturnPart)] == ['Hello, one!', 'Hello, two!']


def test_the_example_of_the_mcp_module_docstring_builds_an_agent():
    import agent.mcp

    doc = agent.mcp.__doc__ or ''
    code = doc.split('```python\n', 1)[1].split('```', 1)[0]
    namespace: dict[str, object] = {}

    exec(code, namespace)

    built = namespace['agent']
    assert isinstance(built, Agent)
    assert namespace['time_server'] in built.toolsets
    assert namespace['docs_server'] in built.toolsets
