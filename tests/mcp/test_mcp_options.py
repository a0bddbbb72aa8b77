"""The constructor options of MCP servers: the id a prefix implies, positional options, return schemas, prefixes."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from agent import Agent, RunContext
from agent.capabilities import IncludeToolReturnSchemas
from agent.mcp import CallToolFunc, MCPServer, MCPServerSSE, MCPServerStdio, MCPServerStreamableHTTP, ToolResult
from agent.messages import ModelMessage, ModelResponse, TextPart, ToolReturnPart
from agent.models import ModelProfile
from agent.models.function import AgentInfo, FunctionModel
from tests._agent_helpers import call, parts_of, scripted, text
from tests._toolset_helpers import make_ctx

from ._servers import InProcessServer, build_app


def make_server(**options: Any) -> InProcessServer:
    app, _ = build_app()
    return InProcessServer(app, **options)


def test_a_servers_tool_prefix_is_its_id_unless_one_is_given():
    assert MCPServerStdio('x', [], tool_prefix='calc').id == 'calc'
    assert MCPServerStdio('x', [], tool_prefix='calc', id='calculator').id == 'calculator'
    assert MCPServerStreamableHTTP('http://h/mcp').id is None


def test_a_servers_id_can_be_set_after_construction():
    server = MCPServerSSE('http://h/sse')

    server.id = 'legacy'

    assert server.id == 'legacy'


def test_the_first_ten_options_of_the_base_class_may_be_passed_by_position():
    async def process(ctx: RunContext[Any], call_tool: CallToolFunc, name: str, args: dict[str, Any]) -> ToolResult:
        return await call_tool(name, args, None)

    app, _ = build_app()

    class Positional(InProcessServer):
        def __init__(self) -> None:
            MCPServer.__init__(self, 'pre', 'info', None, 9, 60, process, False, None, 4, None)
            self.app = app
            self.connections_opened = 0

    server = Positional()

    assert (server.tool_prefix, server.log_level, server.timeout, server.read_timeout) == ('pre', 'info', 9, 60)
    assert (server.process_tool_call, server.allow_sampling, server.max_retries) == (process, False, 4)


@pytest.mark.parametrize('transport', [MCPServerStdio, MCPServerStreamableHTTP, MCPServerSSE])
def test_every_transport_takes_the_options_of_pydantic_ais_servers(transport: type[MCPServer]):
    options = set(inspect.signature(transport).parameters)

    assert {
        'tool_prefix',
        'log_level',
        'log_handler',
        'timeout',
        'read_timeout',
        'process_tool_call',
        'allow_sampling',
        'sampling_model',
        'max_retries',
        'elicitation_callback',
        'cache_prompts',
        'cache_tools',
        'cache_resources',
        'include_instructions',
        'include_return_schema',
        'id',
        'client_info',
    } <= options


async def test_process_tool_call_sees_the_tool_name_without_the_prefix_in_its_context():
    seen: list[str | None] = []

    async def process(ctx: RunContext[Any], call_tool: CallToolFunc, name: str, args: dict[str, Any]) -> ToolResult:
        seen.append(ctx.tool_name)
        return await call_tool(name, args, None)

    agent = Agent(
        scripted(call('ev_greet', {'name': 'Ann'}), text('done')),
        toolsets=[make_server(tool_prefix='ev', process_tool_call=process)],
    )

    result = await agent.run('go')

    assert seen == ['greet']
    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == 'Hello, Ann!'


async def test_include_return_schema_is_set_on_every_tool_definition():
    tools = await make_server(include_return_schema=False).get_tools(make_ctx())

    assert {tool.tool_def.include_return_schema for tool in tools.values()} == {False}


async def test_a_server_that_turns_return_schemas_off_keeps_them_back_even_from_the_capability():
    seen: dict[str, Any] = {}

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.update({tool.name: tool.return_schema for tool in info.function_tools})
        return ModelResponse(parts=[TextPart('ok')])

    for include in (None, False):
        agent = Agent(
            # A model whose API takes return schemas, so they reach it as schemas rather than in descriptions.
            FunctionModel(respond, profile=ModelProfile(supports_tool_return_schema=True)),
            toolsets=[make_server(tool_prefix=str(include), include_return_schema=include)],
            # Only the tool with an output schema: one without would warn that it has nothing to send.
            capabilities=[IncludeToolReturnSchemas(tools=[f'{include}_add'])],
        )
        await agent.run('go')

    assert seen['None_add'] is not None
    assert seen['False_add'] is None
