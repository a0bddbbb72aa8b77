"""`load_mcp_servers` and `load_mcp_toolsets`: servers from a configuration file, expanding environment variables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pydantic
import pytest

from agent import Agent
from agent.mcp import MCPServerSSE, MCPServerStdio, MCPServerStreamableHTTP, load_mcp_servers, load_mcp_toolsets
from agent.messages import ToolReturnPart
from agent.models.test import TestModel
from agent.toolsets import PrefixedToolset
from tests._agent_helpers import parts_of
from tests._toolset_helpers import make_ctx

from ._servers import stdio_command


def write_config(tmp_path: Path, servers: dict[str, Any]) -> Path:
    path = tmp_path / 'mcp.json'
    path.write_text(json.dumps({'mcpServers': servers}))
    return path


def test_entries_become_stdio_streamable_http_and_sse_servers_named_by_their_keys(tmp_path: Path):
    path = write_config(
        tmp_path,
        {
            'local': {'command': 'python', 'args': ['-m', 'srv'], 'env': {'A': '1'}, 'cwd': '/srv'},
            'remote': {'url': 'https://mcp.example.com/mcp', 'headers': {'Authorization': 'Bearer t'}},
            'legacy': {'url': 'https://mcp.example.com/sse'},
        },
    )

    local, remote, legacy = load_mcp_servers(path)

    assert isinstance(local, MCPServerStdio)
    assert (local.id, local.command, list(local.args), local.env, local.cwd) == (
        'local',
        'python',
        ['-m', 'srv'],
        {'A': '1'},
        '/srv',
    )
    assert isinstance(remote, MCPServerStreamableHTTP)
    assert (remote.id, remote.url, remote.headers) == (
        'remote',
        'https://mcp.example.com/mcp',
        {'Authorization': 'Bearer t'},
    )
    assert type(legacy) is MCPServerSSE
    assert legacy.id == 'legacy'


@pytest.mark.parametrize(
    ('entry', 'transport'),
    [
        ({'url': 'http://h/sse/'}, MCPServerSSE),
        ({'url': 'http://h/sse?token=1'}, MCPServerSSE),
        ({'url': 'http://h/events', 'type': 'sse'}, MCPServerSSE),
        ({'url': 'http://h/sse', 'type': 'http'}, MCPServerStreamableHTTP),
        ({'url': 'http://h/mcp', 'type': 'streamable-http'}, MCPServerStreamableHTTP),
    ],
)
def test_the_transport_follows_the_url_unless_the_type_names_it(tmp_path: Path, entry: dict[str, Any], transport: type):
    [server] = load_mcp_servers(write_config(tmp_path, {'s': entry}))

    assert type(server) is transport


def test_environment_variables_are_expanded_with_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv('MCP_TOKEN', 'abc')
    monkeypatch.delenv('MCP_ZONE', raising=False)
    path = write_config(
        tmp_path,
        {
            'time': {'command': 'mcp-server-time', 'args': ['--local-timezone', '${MCP_ZONE:-UTC}']},
            'docs': {'url': 'https://docs.example.com/mcp', 'headers': {'Authorization': 'Bearer ${MCP_TOKEN}'}},
        },
    )

    time, docs = load_mcp_servers(str(path))

    assert isinstance(time, MCPServerStdio)
    assert list(time.args) == ['--local-timezone', 'UTC']
    assert isinstance(docs, MCPServerStreamableHTTP)
    assert docs.headers == {'Authorization': 'Bearer abc'}


def test_a_set_variable_wins_over_its_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv('MCP_ZONE', 'Europe/Oslo')

    [server] = load_mcp_servers(write_config(tmp_path, {'t': {'command': 'x', 'args': ['${MCP_ZONE:-UTC}']}}))

    assert isinstance(server, MCPServerStdio)
    assert list(server.args) == ['Europe/Oslo']


def test_an_undefined_variable_without_default_is_a_value_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv('MCP_MISSING', raising=False)
    path = write_config(tmp_path, {'s': {'url': 'https://h/${MCP_MISSING}/mcp'}})

    with pytest.raises(ValueError, match="'MCP_MISSING' is not defined"):
        load_mcp_servers(path)


def test_a_missing_file_is_a_file_not_found_error(tmp_path: Path):
    with pytest.raises(FileNotFoundError, match=r'nope\.json'):
        load_mcp_servers(tmp_path / 'nope.json')


@pytest.mark.parametrize(
    'servers',
    [
        {'s': {'args': ['no command or url']}},
        {'s': {'command': 'x', 'arguments': ['typo']}},
        {'s': {'url': 'http://h/mcp', 'type': 'websocket'}},
    ],
)
def test_a_configuration_that_does_not_match_the_schema_is_a_validation_error(tmp_path: Path, servers: dict[str, Any]):
    with pytest.raises(pydantic.ValidationError):
        load_mcp_servers(write_config(tmp_path, servers))


def test_a_file_without_mcp_servers_is_a_validation_error(tmp_path: Path):
    path = tmp_path / 'mcp.json'
    path.write_text('{"servers": {}}')

    with pytest.raises(pydantic.ValidationError):
        load_mcp_servers(path)


async def test_a_loaded_stdio_server_runs(tmp_path: Path):
    command, args = stdio_command()
    [server] = load_mcp_servers(write_config(tmp_path, {'local': {'command': command, 'args': args}}))
    server.timeout = 60

    assert await server.direct_call_tool('echo', {'text': 'from config'}) == 'from config'


def test_loaded_servers_prefix_their_tools_with_their_name(tmp_path: Path):
    path = write_config(tmp_path, {'local': {'command': 'x'}, 'remote': {'url': 'https://h/mcp'}})

    local, remote = load_mcp_servers(path)

    assert (local.tool_prefix, remote.tool_prefix) == ('local', 'remote')


async def test_an_agent_calls_a_loaded_servers_tool_under_the_prefixed_name(tmp_path: Path):
    command, args = stdio_command()
    [server] = load_mcp_servers(write_config(tmp_path, {'local': {'command': command, 'args': args}}))
    server.timeout = 60
    agent = Agent(TestModel(call_tools=['local_echo']), toolsets=[server])

    result = await agent.run('go')

    [returned] = parts_of(result.all_messages(), ToolReturnPart)
    assert returned.tool_name == 'local_echo'
    assert returned.content == 'a'


def test_loaded_toolsets_wrap_each_server_in_a_prefix_of_its_name(tmp_path: Path):
    path = write_config(tmp_path, {'local': {'command': 'x', 'args': ['-v']}, 'legacy': {'url': 'https://h/sse'}})

    local, legacy = load_mcp_toolsets(path)

    assert isinstance(local, PrefixedToolset)
    assert isinstance(legacy, PrefixedToolset)
    assert (local.prefix, legacy.prefix) == ('local', 'legacy')
    assert isinstance(local.wrapped, MCPServerStdio)
    assert (local.wrapped.id, local.wrapped.tool_prefix, list(local.wrapped.args)) == ('local', None, ['-v'])
    assert type(legacy.wrapped) is MCPServerSSE
    assert legacy.wrapped.id == 'legacy'


async def test_a_loaded_toolset_offers_and_calls_its_servers_tools_prefixed(tmp_path: Path):
    command, args = stdio_command()
    [toolset] = load_mcp_toolsets(write_config(tmp_path, {'local': {'command': command, 'args': args}}))
    assert isinstance(toolset, PrefixedToolset)
    server = toolset.wrapped
    assert isinstance(server, MCPServerStdio)
    server.timeout = 60
    agent = Agent(TestModel(call_tools=['local_echo']), toolsets=[toolset])

    async with toolset:
        assert 'local_echo' in await toolset.get_tools(make_ctx())
        result = await agent.run('go')

    [returned] = parts_of(result.all_messages(), ToolReturnPart)
    assert (returned.tool_name, returned.content) == ('local_echo', 'a')


def test_loading_toolsets_from_a_missing_file_is_a_file_not_found_error(tmp_path: Path):
    with pytest.raises(FileNotFoundError, match=r'nope\.json'):
        load_mcp_toolsets(tmp_path / 'nope.json')
