"""MCP tools: listing them as tool definitions, calling them directly and through an agent, results and failures."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest

from agent import Agent, RunContext
from agent._mcp._convert import tool_definition
from agent.exceptions import ModelRetry
from agent.mcp import CallToolFunc, ToolResult
from agent.messages import (
    BinaryContent,
    BinaryImage,
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.models.function import AgentInfo
from agent.models.test import TestModel
from tests._agent_helpers import call, parts_of, scripted, text
from tests._toolset_helpers import make_ctx

from ._servers import PNG, InProcessServer, build_app


def make_server(**options: Any) -> InProcessServer:
    app, _ = build_app()
    return InProcessServer(app, **options)


async def test_list_tools_returns_the_sdk_tools_of_the_server():
    tools = await make_server().list_tools()

    add = next(tool for tool in tools if tool.name == 'add')
    assert isinstance(add, types.Tool)
    assert add.description == 'Add two numbers.'
    assert add.input_schema['required'] == ['a', 'b']


async def test_tools_are_offered_under_the_prefix_with_schemas_and_mcp_metadata():
    server = make_server(tool_prefix='ev', max_retries=3)

    tools = await server.get_tools(make_ctx())

    assert 'ev_greet' in tools
    assert 'greet' not in tools
    add = tools['ev_add']
    assert add.max_retries == 3
    assert add.toolset is server
    assert add.tool_def.description == 'Add two numbers.'
    assert add.tool_def.parameters_json_schema['properties']['a'] == {'title': 'A', 'type': 'integer'}
    assert add.tool_def.return_schema is not None
    assert add.tool_def.metadata == {
        'meta': {'category': 'math'},
        'annotations': {'readOnlyHint': True},
        'task': False,
        'output_schema': add.tool_def.return_schema,
    }


def test_the_task_flag_says_whether_a_tool_supports_task_augmented_execution():
    def flag(support: Any) -> bool:
        tool = types.Tool(
            name='t', input_schema={'type': 'object'}, execution=types.ToolExecution(task_support=support)
        )
        metadata = tool_definition(tool, 't').metadata
        assert metadata is not None
        return metadata['task']

    assert (flag('required'), flag('optional'), flag('forbidden'), flag(None)) == (True, True, False, False)


@pytest.mark.parametrize(
    ('name', 'args', 'expected'),
    [
        pytest.param('greet', {'name': 'Ada'}, 'Hello, Ada!', id='text'),
        pytest.param('add', {'a': 1, 'b': 2}, 3, id='structured-primitive'),
        pytest.param('forecast', {'city': 'Oslo'}, {'city': 'Oslo', 'celsius': 21}, id='structured-object'),
        pytest.param('pixel', {}, BinaryImage(PNG, media_type='image/png'), id='image'),
        pytest.param('text_and_image', {}, ['a caption', BinaryImage(PNG, media_type='image/png')], id='several'),
        pytest.param('embedded', {}, 'inline text', id='embedded-resource'),
        pytest.param('linked', {}, 'Read me first.', id='resource-link-is-read'),
    ],
)
async def test_direct_call_tool_converts_each_kind_of_result(name: str, args: dict[str, Any], expected: ToolResult):
    assert await make_server().direct_call_tool(name, args) == expected


async def test_a_failing_tool_raises_model_retry_with_the_server_message():
    with pytest.raises(ModelRetry, match='failed because the disk is full'):
        await make_server().direct_call_tool('fail', {'reason': 'the disk is full'})


async def test_calling_a_tool_the_server_does_not_have_raises_model_retry():
    with pytest.raises(ModelRetry, match='Unknown tool: nope'):
        await make_server().direct_call_tool('nope', {})


async def test_direct_call_tool_sends_metadata_as_the_request_meta():
    assert await make_server().direct_call_tool('meta', {}, {'user': 'ada'}) == {'user': 'ada'}


async def test_process_tool_call_wraps_calls_and_can_add_metadata():
    seen: list[tuple[str, dict[str, Any], int]] = []

    async def process(ctx: RunContext[Any], call_tool: CallToolFunc, name: str, args: dict[str, Any]) -> ToolResult:
        seen.append((name, args, ctx.deps))
        return await call_tool(name, args, {'deps': ctx.deps})

    server = make_server(tool_prefix='ev', process_tool_call=process)
    agent = Agent(scripted(call('ev_meta', {}), text('done')), toolsets=[server], deps_type=int)

    result = await agent.run('go', deps=7)

    assert seen == [('meta', {}, 7)]
    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == {'deps': 7}


async def test_an_agent_calls_server_tools_and_gets_their_results():
    server = make_server()
    agent = Agent(TestModel(call_tools=['add', 'greet']), toolsets=[server])

    result = await agent.run('go')

    returns = {part.tool_name: part.content for part in parts_of(result.all_messages(), ToolReturnPart)}
    assert returns == {'add': 0, 'greet': 'Hello, a!'}
    assert not server.is_running


async def test_binary_tool_results_reach_the_model_as_content_after_the_tool_return():
    agent = Agent(scripted(call('text_and_image', {}), text('nice')), toolsets=[make_server()])

    result = await agent.run('draw')

    messages = result.all_messages()
    [image] = [
        item for part in parts_of(messages, UserPromptPart) for item in part.content if not isinstance(item, str)
    ]
    assert isinstance(image, BinaryContent)
    assert (image.data, image.media_type) == (PNG, 'image/png')
    assert parts_of(messages, ToolReturnPart)[0].content == ['a caption', f'See file {image.identifier}.']


async def test_a_failing_tool_call_is_sent_back_to_the_model_as_a_retry():
    def second_try(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        retry = parts_of(messages, RetryPromptPart)[0]
        assert 'failed because the cable' in retry.content
        return call('greet', {'name': 'again'})

    model = scripted(call('fail', {'reason': 'the cable'}), second_try, text('ok'))
    agent = Agent(model, toolsets=[make_server()])

    result = await agent.run('go')

    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == 'Hello, again!'


async def test_a_tool_failing_more_often_than_max_retries_ends_the_run():
    model = scripted(call('fail', {'reason': 'one'}), call('fail', {'reason': 'two'}))
    agent = Agent(model, toolsets=[make_server(max_retries=1)])

    with pytest.raises(Exception, match='exceeded max retries'):
        await agent.run('go')
