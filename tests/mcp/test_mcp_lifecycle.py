"""`MCPServer` lifecycle: re-entrant contexts, what initialization tells, instructions, and failed connects."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
import pytest

from agent import Agent
from agent.exceptions import ModelRetry, UserError
from agent.mcp import InstructionPart, MCPServer, ServerCapabilities
from agent.models.test import TestModel

from ._servers import InProcessServer, build_app


def make_server(**options: Any) -> InProcessServer:
    app, _ = build_app()
    return InProcessServer(app, **options)


async def test_nested_contexts_share_one_connection_until_the_last_exit():
    server = make_server()

    async with server:
        async with server:
            assert server.is_running
        assert server.is_running
    assert not server.is_running
    assert server.connections_opened == 1


async def test_a_server_connects_again_after_its_last_exit():
    server = make_server()

    async with server:
        pass
    async with server:
        assert [tool.name for tool in await server.list_tools()][:2] == ['greet', 'add']

    assert server.connections_opened == 2


async def test_initialization_tells_server_info_capabilities_and_instructions():
    server = make_server()

    async with server:
        assert (server.server_info.name, server.server_info.version) == ('everything', '1.2.3')
        assert server.capabilities == ServerCapabilities(
            logging=True,
            prompts=True,
            prompts_list_changed=True,
            resources=True,
            resources_list_changed=True,
            tools=True,
            tools_list_changed=True,
        )
        assert server.instructions == 'Use the tools wisely.'


def test_server_info_of_a_server_that_is_not_running_is_a_user_error():
    with pytest.raises(UserError, match='is not running'):
        _ = make_server().server_info


async def test_an_operation_on_a_server_nobody_entered_connects_just_for_the_call():
    server = make_server()

    assert await server.direct_call_tool('greet', {'name': 'Ada'}) == 'Hello, Ada!'
    assert not server.is_running


async def test_get_instructions_returns_the_server_instructions_marked_dynamic_when_included():
    included = make_server(include_instructions=True)
    ctx: Any = None

    assert await included.get_instructions(ctx) == InstructionPart('Use the tools wisely.', dynamic=True)
    assert await make_server().get_instructions(ctx) is None


async def test_get_instructions_is_none_when_the_server_sends_none():
    app, _ = build_app(instructions=None)

    assert await InProcessServer(app, include_instructions=True).get_instructions(None) is None  # pyright: ignore[reportArgumentType]


async def test_a_server_that_includes_its_instructions_adds_them_to_the_agents():
    agent = Agent(TestModel(call_tools=[]), toolsets=[make_server(include_instructions=True)], instructions='Be brief.')

    result = await agent.run('hi')

    assert getattr(result.all_messages()[0], 'instructions', None) == 'Be brief.\n\nUse the tools wisely.'


async def test_a_server_adds_no_instructions_unless_asked_to():
    agent = Agent(TestModel(call_tools=[]), toolsets=[make_server()], instructions='Be brief.')

    result = await agent.run('hi')

    assert getattr(result.all_messages()[0], 'instructions', None) == 'Be brief.'


async def test_a_server_entered_in_one_task_can_be_left_in_another():
    server = make_server()

    await asyncio.create_task(server.__aenter__())
    assert server.is_running
    await server.__aexit__(None, None, None)

    assert not server.is_running


class SilentServer(MCPServer):
    """A transport on which nobody ever answers."""

    @asynccontextmanager
    async def client_streams(self) -> AsyncIterator[Any]:
        send, receive = anyio.create_memory_object_stream[Any](10)
        sink, drain = anyio.create_memory_object_stream[Any](10)
        async with send, receive, sink, drain:
            yield receive, sink


async def test_a_server_that_does_not_initialize_in_time_raises_timeout_error():
    server = SilentServer(timeout=0.2)

    with pytest.raises(TimeoutError, match=r'did not initialize within 0\.2 seconds'):
        await server.__aenter__()
    assert not server.is_running


class RefusingServer(MCPServer):
    """A transport that cannot connect."""

    def __init__(self) -> None:
        super().__init__()
        self.attempts = 0

    @asynccontextmanager
    async def client_streams(self) -> AsyncIterator[Any]:
        self.attempts += 1
        raise ConnectionRefusedError('nobody listens there')
        yield


async def test_a_failed_connect_raises_its_cause_and_the_next_enter_tries_again():
    server = RefusingServer()

    for _ in range(2):
        with pytest.raises(ConnectionRefusedError, match='nobody listens'):
            async with server:
                pass

    assert server.attempts == 2
    assert not server.is_running


def test_a_server_serves_consecutive_synchronous_runs():
    server = make_server()
    agent = Agent(TestModel(call_tools=['greet']), toolsets=[server])

    outputs = [agent.run_sync('hi').output for _ in range(2)]

    assert outputs == ['{"greet":"Hello, a!"}'] * 2
    assert server.connections_opened == 2


async def test_client_info_tells_the_server_who_is_calling():
    server = make_server(client_info=types.Implementation(name='durable-agents', version='9.9'))

    assert await server.direct_call_tool('client', {}) == 'durable-agents 9.9'


async def test_a_request_without_an_answer_within_read_timeout_fails_the_call():
    server = make_server(read_timeout=0.2)

    async with server:
        with pytest.raises(ModelRetry, match="Request 'tools/call' timed out"):
            await server.direct_call_tool('stall', {})
        assert await server.direct_call_tool('greet', {'name': 'still here'}) == 'Hello, still here!'
