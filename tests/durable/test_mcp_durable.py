"""MCP servers in durable runs: tools listed by an activity, called in the tool activity on a pooled connection."""

from __future__ import annotations

import json
import os
import signal
import uuid
from typing import Any

import mcp_types
import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from agent import Agent, UserError
from agent.capabilities import MCP
from agent.mcp import MCPServerStdio
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models import ModelProfile
from agent.models.function import AgentInfo, FunctionModel
from tests.mcp._servers import InProcessServer, build_app, serve_http, stdio_command
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow

pytestmark = pytest.mark.asyncio(loop_scope='session')

START = 20


def returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]


def pid_then_echo(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Asks the server for its pid, then echoes twice (three tool steps), then reports what it saw."""
    done = returns(messages)
    assert {t.name for t in info.function_tools} >= {'calc_pid', 'calc_echo'}
    if not done:
        return ModelResponse(parts=[ToolCallPart('calc_pid', {}, 'pid-1')])
    if len(done) < 3:
        return ModelResponse(parts=[ToolCallPart('calc_echo', {'text': f'hello {len(done)}'}, f'echo-{len(done)}')])
    return ModelResponse(parts=[TextPart(json.dumps([r.content for r in done]))])


def stdio_agent(name: str, tool_prefix: str | None = 'calc', **server_options: Any) -> Agent[None, str]:
    command, args = stdio_command()
    server = MCPServerStdio(command, args, tool_prefix=tool_prefix, timeout=START, **server_options)
    return Agent(FunctionModel(pid_then_echo), name=name, toolsets=[server])


async def run(client: Client, task_queue: str, agent: str) -> tuple[list[Any], str]:
    workflow_id = f'mcp-{uuid.uuid4()}'
    result: AgentRunOutput = await client.execute_workflow(
        AgentWorkflow.run, AgentRunInput(agent=agent, prompt='go'), id=workflow_id, task_queue=task_queue
    )
    return json.loads(result.output), workflow_id


async def activity_names(client: Client, workflow_id: str) -> list[str]:
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    return [
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]


async def test_mcp_tools_are_listed_once_per_run_by_activity_and_called_on_one_live_server(
    client: Client, task_queue: str
) -> None:
    agent = stdio_agent('mcp_calc', id='calc')
    async with build_worker(client, {'mcp_calc': agent}, task_queue=task_queue):
        first, workflow_id = await run(client, task_queue, 'mcp_calc')
        second, _ = await run(client, task_queue, 'mcp_calc')
    pid, *echoes = first
    assert echoes == ['hello 1', 'hello 2']
    # The worker kept one server process for both runs (and all their tool calls) instead of one per call.
    assert second[0] == pid
    names = await activity_names(client, workflow_id)
    # Four model requests and three tool steps, but the tool list was fetched once for the whole run.
    assert names.count('agent.mcp_calc.toolset.calc.list_tools') == 1
    assert names.count('agent.mcp_calc.call_tool') == 3
    # And the server process stops with the worker.
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_a_killed_server_process_is_restarted_for_the_next_run(client: Client, task_queue: str) -> None:
    agent = stdio_agent('mcp_restart', id='calc')
    async with build_worker(client, {'mcp_restart': agent}, task_queue=task_queue):
        first, _ = await run(client, task_queue, 'mcp_restart')
        os.kill(first[0], signal.SIGKILL)
        second, _ = await run(client, task_queue, 'mcp_restart')
    assert second[1:] == ['hello 1', 'hello 2']
    assert second[0] != first[0]


async def test_an_mcp_server_without_an_id_is_refused_when_the_worker_starts(client: Client, task_queue: str) -> None:
    with pytest.raises(UserError, match=r"MCP server without an id .* pass id='\.\.\.'"):
        # Without a `tool_prefix` either, which would serve as the id.
        build_worker(client, {'mcp_anonymous': stdio_agent('mcp_anonymous', tool_prefix=None)}, task_queue=task_queue)


async def test_a_servers_instructions_reach_the_model_through_one_activity_per_run(
    client: Client, task_queue: str
) -> None:
    agent = stdio_agent('mcp_instructed', id='calc', include_instructions=True)
    async with build_worker(client, {'mcp_instructed': agent}, task_queue=task_queue):
        workflow_id = f'mcp-{uuid.uuid4()}'
        result: AgentRunOutput = await client.execute_workflow(
            AgentWorkflow.run, AgentRunInput(agent='mcp_instructed', prompt='go'), id=workflow_id, task_queue=task_queue
        )
    requests = [m for m in result.new_messages if isinstance(m, ModelRequest)]
    assert len(requests) == 4
    assert all(m.instructions == 'A server in a subprocess.' for m in requests)
    names = await activity_names(client, workflow_id)
    assert names.count('agent.mcp_instructed.toolset.calc.get_instructions') == 1


def book_agent() -> Agent[None, str]:
    """Summarizes through the server's `summarize` tool, which asks the client's model; then asks for a name."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if info.function_tools == []:
            return ModelResponse(parts=[TextPart('gist')])  # a sampling request from the server
        done = returns(messages)
        if not done:
            return ModelResponse(
                parts=[
                    ToolCallPart('summarize', {'text': 'the whole book'}, 's-1'),
                    ToolCallPart('ask_name', {}, 'n-1'),
                ]
            )
        return ModelResponse(parts=[TextPart(json.dumps({r.tool_name: r.content for r in done}))])

    async def answer(context: Any, params: Any) -> mcp_types.ElicitResult:
        return mcp_types.ElicitResult(action='accept', content={'name': 'Ada'})

    app, _ = build_app()
    server = InProcessServer(app, id='book', elicitation_callback=answer)
    return Agent(FunctionModel(respond, model_name='run-model'), name='mcp_book', toolsets=[server])


@pytest.mark.filterwarnings('ignore::mcp.MCPDeprecationWarning')  # the test server samples through a 2025-era call
async def test_sampling_and_elicitation_are_answered_on_the_worker_during_the_tool_activity(
    client: Client, task_queue: str
) -> None:
    async with build_worker(client, {'mcp_book': book_agent()}, task_queue=task_queue):
        result: AgentRunOutput = await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='mcp_book', prompt='go'),
            id=f'mcp-{uuid.uuid4()}',
            task_queue=task_queue,
        )
    assert json.loads(result.output) == {
        'summarize': 'run-model: gist',  # the agent's model answered the server's sampling request
        'ask_name': 'Hi Ada',  # the server's elicitation callback answered on the worker
    }


def adder(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if not returns(messages):
        assert 'web_add' in {t.name for t in info.function_tools}
        return ModelResponse(parts=[ToolCallPart('web_add', {'a': 2, 'b': 3}, 'add-1')])
    return ModelResponse(parts=[TextPart(f'sum={returns(messages)[0].content}')])


async def test_the_mcp_capability_connects_by_url_from_the_worker_with_prefixed_tools(
    client: Client, task_queue: str
) -> None:
    app, _ = build_app()
    async with serve_http(app.streamable_http_app()) as base:
        capability = MCP(url=f'{base}/mcp').prefix_tools('web')
        # A model without native MCP support, so the capability connects from the worker.
        agent = Agent(FunctionModel(adder, profile=ModelProfile()), name='mcp_by_url', capabilities=[capability])
        async with build_worker(client, {'mcp_by_url': agent}, task_queue=task_queue):
            workflow_id = f'mcp-{uuid.uuid4()}'
            result: AgentRunOutput = await client.execute_workflow(
                AgentWorkflow.run, AgentRunInput(agent='mcp_by_url', prompt='go'), id=workflow_id, task_queue=task_queue
            )
    assert result.output == 'sum=5'
    names = await activity_names(client, workflow_id)
    # The server id comes from the URL, so the activity names stay the same for every run and worker.
    [list_tools] = [name for name in names if name.endswith('.list_tools')]
    assert list_tools.startswith('agent.mcp_by_url.toolset.127_0_0_1_')
