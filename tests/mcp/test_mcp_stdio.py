"""The stdio transport: a server subprocess, its environment and working directory, and real registry servers."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import sys
from pathlib import Path

import anyio
import pytest

from agent import Agent
from agent.mcp import MCPServerStdio
from agent.messages import BinaryContent, ModelResponse, TextPart, ToolReturnPart
from agent.models.function import FunctionModel
from tests._agent_helpers import call, parts_of, scripted, text

from ._servers import alive, server_pid, stdio_command

# Starting a Python (or Node) process is slow on a busy machine; the default 5 s would make the tests flaky.
START = 60


async def test_a_stdio_server_runs_as_a_subprocess_and_stops_on_exit():
    command, args = stdio_command()

    async with MCPServerStdio(command, args, timeout=START) as server:
        assert (server.server_info.name, server.instructions) == ('stdio-test', 'A server in a subprocess.')
        assert await server.direct_call_tool('echo', {'text': 'ping'}) == 'ping'
        pid = await server_pid(server)
        assert pid != os.getpid()
        assert alive(pid)

    assert not alive(pid)


async def test_the_subprocess_does_not_inherit_the_parents_environment(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv('MCP_TEST_SECRET', 's3cret')
    command, args = stdio_command()

    async with MCPServerStdio(command, args, timeout=START) as server:
        assert await server.direct_call_tool('env_var', {'name': 'MCP_TEST_SECRET'}) == '<unset>'
        # Only the SDK's minimal safe set passes through, so the command can be found and run.
        assert await server.direct_call_tool('env_var', {'name': 'PATH'}) == os.environ['PATH']


async def test_the_subprocess_gets_the_given_environment_and_working_directory(tmp_path: Path):
    command, args = stdio_command()

    async with MCPServerStdio(command, args, env={'GREETING': 'hej'}, cwd=tmp_path, timeout=START) as server:
        assert await server.direct_call_tool('env_var', {'name': 'GREETING'}) == 'hej'
        assert await server.direct_call_tool('cwd', {}) == str(tmp_path)


async def test_a_command_that_does_not_exist_fails_to_connect():
    with pytest.raises(OSError, match='no-such-mcp-server'):
        async with MCPServerStdio('no-such-mcp-server', []):
            pass


@pytest.mark.skipif(
    importlib.util.find_spec('mcp_server_time') is None,
    reason='mcp-server-time (PyPI, in the dev extras) is not installed',
)
async def test_the_mcp_server_time_package_works_as_an_agent_toolset():
    server = MCPServerStdio(sys.executable, ['-m', 'mcp_server_time', '--local-timezone', 'UTC'], timeout=START)
    model = scripted(call('get_current_time', {'timezone': 'UTC'}), text('It is now.'))
    agent = Agent(model, toolsets=[server])

    async with server:
        assert 'get_current_time' in {tool.name for tool in await server.list_tools()}
        now = await server.direct_call_tool('get_current_time', {'timezone': 'Europe/Oslo'})
        result = await agent.run('what time is it?')

    assert isinstance(now, dict)
    assert now['timezone'] == 'Europe/Oslo'
    [returned] = parts_of(result.all_messages(), ToolReturnPart)
    assert set(returned.content) == {'timezone', 'datetime', 'day_of_week', 'is_dst'}
    assert returned.content['timezone'] == 'UTC'


@pytest.mark.skipif(shutil.which('npx') is None, reason='npx (Node.js) is not installed')
@pytest.mark.timeout(240)  # a first run downloads the server from the npm registry
async def test_the_reference_everything_server_from_npm_serves_tools_resources_and_sampling():
    model = FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart('sampled!')]), model_name='fm')
    server = MCPServerStdio(
        'npx', ['-y', '@modelcontextprotocol/server-everything@2026.8.31', 'stdio'], timeout=180, sampling_model=model
    )

    async with server:
        assert server.capabilities.tools_list_changed
        assert await server.direct_call_tool('echo', {'message': 'hi'}) == 'Echo: hi'
        image = await server.direct_call_tool('get-tiny-image', {})
        sampled = await server.direct_call_tool('trigger-sampling-request', {'prompt': 'hello', 'maxTokens': 10})
        resources = await server.list_resources()
        first = await server.read_resource(resources[0])

    assert isinstance(image, list)
    assert any(isinstance(item, BinaryContent) and item.media_type == 'image/png' for item in image)
    assert isinstance(sampled, str)
    assert '"text": "sampled!"' in sampled
    assert isinstance(first, str)
    assert first


async def test_an_entered_server_whose_process_died_starts_a_new_one_on_the_next_call():
    command, args = stdio_command()

    async with MCPServerStdio(command, args, timeout=START) as server:
        old_pid = await server_pid(server)
        os.kill(old_pid, signal.SIGKILL)
        with anyio.fail_after(5):
            while server.is_running:
                await anyio.lowlevel.checkpoint()

        new_pid = await server_pid(server)
        assert server.is_running

    assert new_pid != old_pid
    assert not alive(new_pid)
