"""How an MCP tool's result is chosen: structured content (unwrapping `{"result": value}`) or the content blocks."""

from __future__ import annotations

import base64
import json
from typing import Any

import mcp_types as types
import pytest
from mcp.server.lowlevel.server import Server as LowLevelServer

from agent import Agent
from agent.messages import BinaryImage, ToolReturnPart
from agent.models.test import TestModel
from tests._agent_helpers import parts_of

from ._servers import PNG, InProcessServer

_IMAGE = types.ImageContent(type='image', data=base64.b64encode(PNG).decode(), mime_type='image/png')


def _text(value: Any) -> types.TextContent:
    return types.TextContent(type='text', text=value if isinstance(value, str) else json.dumps(value))


RESULTS: dict[str, types.CallToolResult] = {
    'wrapped': types.CallToolResult(content=[_text({'result': [1, 2]})], structured_content={'result': [1, 2]}),
    'two_keys': types.CallToolResult(
        content=[_text({'result': 1, 'unit': 'm'})], structured_content={'result': 1, 'unit': 'm'}
    ),
    'object': types.CallToolResult(content=[_text({'city': 'Oslo'})], structured_content={'city': 'Oslo'}),
    'structured_and_image': types.CallToolResult(content=[_text('see'), _IMAGE], structured_content={'result': 'x'}),
    'empty_structured': types.CallToolResult(content=[_text('plain')], structured_content={}),
    'json_text': types.CallToolResult(content=[_text('{"a": [1, 2]}')]),
    'json_list_text': types.CallToolResult(content=[_text('[1, "two"]')]),
    'not_json_text': types.CallToolResult(content=[_text('{not json')]),
}


def results_server(**options: Any) -> InProcessServer:
    """A server whose tools return the results above exactly as written (no SDK wrapping)."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        schema = {'type': 'object', 'properties': {}}
        return types.ListToolsResult(tools=[types.Tool(name=name, input_schema=schema) for name in RESULTS])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return RESULTS[params.name]

    return InProcessServer(LowLevelServer('results', on_list_tools=list_tools, on_call_tool=call_tool), **options)


@pytest.mark.parametrize(
    ('name', 'expected'),
    [
        pytest.param('wrapped', [1, 2], id='single-result-key-is-unwrapped'),
        pytest.param('two_keys', {'result': 1, 'unit': 'm'}, id='result-beside-other-keys-is-kept'),
        pytest.param('object', {'city': 'Oslo'}, id='object-as-is'),
        pytest.param('structured_and_image', ['see', BinaryImage(PNG, media_type='image/png')], id='image-wins'),
        pytest.param('empty_structured', 'plain', id='empty-structured-falls-back-to-content'),
        pytest.param('json_text', {'a': [1, 2]}, id='json-object-text-is-parsed'),
        pytest.param('json_list_text', [1, 'two'], id='json-array-text-is-parsed'),
        pytest.param('not_json_text', '{not json', id='invalid-json-stays-text'),
    ],
)
async def test_the_result_is_the_unwrapped_structured_content_or_the_converted_content(name: str, expected: Any):
    assert await results_server().direct_call_tool(name, {}) == expected


async def test_the_model_sees_the_unwrapped_value_of_a_wrapped_result():
    agent = Agent(TestModel(call_tools=['wrapped']), toolsets=[results_server()])

    result = await agent.run('go')

    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == [1, 2]
