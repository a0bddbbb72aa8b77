"""`MCPConnectionPool`: one live connection per server id, dead server processes restarted on the next call."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator

import anyio
import pytest

from agent._mcp import MCPConnectionPool
from agent.exceptions import ModelRetry, UserError
from agent.mcp import MCPServerStdio

from ._servers import InProcessServer, alive, build_app, server_pid, stdio_command


@pytest.fixture
async def pool() -> AsyncIterator[MCPConnectionPool]:
    command, args = stdio_command()
    async with MCPConnectionPool([MCPServerStdio(command, args, id='local', timeout=60)]) as pool:
        yield pool


async def test_calls_share_one_live_connection(pool: MCPConnectionPool):
    first = await pool.run('local', server_pid)
    second = await pool.run('local', server_pid)

    assert first == second
    assert pool.server('local').is_running


async def test_a_server_process_that_died_is_restarted_on_the_next_call(pool: MCPConnectionPool):
    old_pid = await pool.run('local', server_pid)
    os.kill(old_pid, signal.SIGKILL)
    with anyio.fail_after(5):
        while pool.server('local').is_running:
            await anyio.lowlevel.checkpoint()

    new_pid = await pool.run('local', server_pid)

    assert new_pid != old_pid
    assert alive(new_pid)
    assert await pool.run('local', lambda server: server.direct_call_tool('echo', {'text': 'back'})) == 'back'


async def test_a_call_racing_the_death_of_its_server_is_retried_on_a_new_process(pool: MCPConnectionPool):
    old_pid = await pool.run('local', server_pid)

    os.kill(old_pid, signal.SIGKILL)
    new_pid = await pool.run('local', server_pid)

    assert new_pid != old_pid


async def test_concurrent_calls_after_a_death_restart_the_server_once(pool: MCPConnectionPool):
    os.kill(await pool.run('local', server_pid), signal.SIGKILL)

    pids = await asyncio.gather(*(pool.run('local', server_pid) for _ in range(4)))

    assert len(set(pids)) == 1


async def test_errors_other_than_a_lost_connection_propagate_without_reconnecting(pool: MCPConnectionPool):
    pid = await pool.run('local', server_pid)

    with pytest.raises(ModelRetry, match='Unknown tool'):
        await pool.run('local', lambda server: server.direct_call_tool('nope', {}))

    assert await pool.run('local', server_pid) == pid


async def test_closing_the_pool_stops_every_server_process():
    command, args = stdio_command()
    server = MCPServerStdio(command, args, id='local', timeout=60)
    pool = MCPConnectionPool([server])
    # Connected by another task, as an activity would; closed by this one, as a worker shutdown would.
    pid = await asyncio.create_task(pool.run('local', server_pid))

    await pool.aclose()

    assert not server.is_running
    assert not alive(pid)


def test_a_pooled_server_needs_an_id():
    app, _ = build_app()

    with pytest.raises(UserError, match='needs an `id`'):
        MCPConnectionPool([InProcessServer(app)])


def test_two_servers_with_the_same_id_are_rejected():
    app, _ = build_app()

    with pytest.raises(UserError, match="share the id 'x'"):
        MCPConnectionPool([InProcessServer(app, id='x'), InProcessServer(app, id='x')])


async def test_an_unknown_server_id_is_a_user_error():
    app, _ = build_app()
    pool = MCPConnectionPool([InProcessServer(app, id='known')])

    with pytest.raises(UserError, match="No MCP server with id 'other' in the pool \\(known: known\\)"):
        await pool.run('other', lambda server: server.list_tools())
