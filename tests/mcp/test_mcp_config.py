"""`load_mcp_servers`: servers from a configuration file, with environment variable expansion."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pydantic
import pytest

from agent.mcp import MCPServerSSE, MCPServerStdio, MCPServerStreamableHTTP, load_mcp_servers

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
