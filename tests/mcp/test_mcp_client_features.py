"""Requests the server makes of the client: sampling from a model, eliciting input, and sending log messages."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientRequestContext

from agent import Agent
from agent.exceptions import ModelRetry
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.models.function import AgentInfo, FunctionModel
from tests._agent_helpers import parts_of

from ._servers import InProcessServer, build_app

# The test server samples and logs through the SDK's 2025-era server calls, which it marks deprecated for 2026.
pytestmark = pytest.mark.filterwarnings('ignore::mcp.MCPDeprecationWarning')


def make_server(**options: Any) -> InProcessServer:
    app, _ = build_app()
    return InProcessServer(app, **options)


async def test_sampling_requests_are_served_by_the_sampling_model():
    requests: list[tuple[list[ModelMessage], AgentInfo]] = []

    def sampler(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        requests.append((messages, info))
        return ModelResponse(parts=[TextPart('short version')])

    server = make_server(sampling_model=FunctionModel(sampler, model_name='sampler'))

    assert await server.direct_call_tool('summarize', {'text': 'a long story'}) == 'sampler: short version'

    [(messages, info)] = requests
    [request] = messages
    assert isinstance(request, ModelRequest)
    assert isinstance(request.parts[0], SystemPromptPart)
    assert request.parts[0].content == 'Summarize.'
    assert isinstance(request.parts[1], UserPromptPart)
    assert request.parts[1].content == 'a long story'
    assert info.model_settings == {'max_tokens': 50, 'temperature': 0.5}
    assert info.function_tools == []


async def test_sampling_in_an_agent_run_uses_the_runs_model():
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if info.function_tools == []:
            return ModelResponse(parts=[TextPart('gist')])
        if not parts_of(messages, ToolReturnPart):
            return ModelResponse(parts=[ToolCallPart('summarize', {'text': 'the whole book'})])
        return ModelResponse(parts=[TextPart('done')])

    agent = Agent(FunctionModel(respond, model_name='run-model'), toolsets=[make_server()])

    result = await agent.run('summarize the book')

    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == 'run-model: gist'


async def test_sampling_without_any_model_fails_the_tool_call_with_a_clear_message():
    with pytest.raises(ModelRetry, match='no model to sample with'):
        await make_server().direct_call_tool('summarize', {'text': 'x'})


async def test_with_sampling_disallowed_the_client_refuses_sampling_requests():
    server = make_server(allow_sampling=False, sampling_model=FunctionModel(lambda m, i: ModelResponse(parts=[])))

    with pytest.raises(ModelRetry, match='Sampling not supported'):
        await server.direct_call_tool('summarize', {'text': 'x'})


async def test_elicitation_requests_are_answered_by_the_callback():
    asked: list[types.ElicitRequestParams] = []

    async def answer(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action='accept', content={'name': 'Ada'})

    server = make_server(elicitation_callback=answer)

    assert await server.direct_call_tool('ask_name', {}) == 'Hi Ada'
    [params] = asked
    assert isinstance(params, types.ElicitRequestFormParams)
    assert params.message == 'What is your name?'
    assert list(params.requested_schema['properties']) == ['name']


async def test_a_declined_elicitation_reaches_the_server_as_declined():
    async def decline(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action='decline')

    assert await make_server(elicitation_callback=decline).direct_call_tool('ask_name', {}) == 'no name (decline)'


async def test_without_an_elicitation_callback_the_server_cannot_elicit():
    with pytest.raises(ModelRetry, match='Elicitation not supported'):
        await make_server().direct_call_tool('ask_name', {})


async def test_the_log_level_is_set_on_connect_and_log_messages_reach_the_handler():
    app, state = build_app()
    received: list[types.LoggingMessageNotificationParams] = []

    async def handler(params: types.LoggingMessageNotificationParams) -> None:
        received.append(params)

    server = InProcessServer(app, log_level='warning', log_handler=handler)

    async with server:
        assert state.log_level == 'warning'
        await server.direct_call_tool('chatty', {})
        # Log notifications are handled concurrently with the tool's response: wait (bounded) for them.
        with anyio.fail_after(5):
            while not received:
                await anyio.lowlevel.checkpoint()

    assert [(params.level, params.data, params.logger) for params in received] == [('warning', 'careful', 'chatty')]


async def test_without_a_log_level_none_is_set_and_every_message_arrives():
    app, state = build_app()
    received: list[str] = []

    async def handler(params: types.LoggingMessageNotificationParams) -> None:
        received.append(params.level)

    async with InProcessServer(app, log_handler=handler) as server:
        await server.direct_call_tool('chatty', {})
        with anyio.fail_after(5):
            while len(received) < 2:
                await anyio.lowlevel.checkpoint()

    assert state.log_level is None
    assert received == ['debug', 'warning']
