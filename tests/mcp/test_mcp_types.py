"""The data of `agent.mcp`: conversions from the MCP SDK's types, the error, instructions and result serialization."""

from __future__ import annotations

import mcp_types as types
import pydantic
import pytest
from mcp.shared.exceptions import MCPError as SDKMCPError

from agent import Agent
from agent._mcp import TOOL_RESULT_ADAPTER
from agent.mcp import (
    Icon,
    InstructionPart,
    MCPError,
    Resource,
    ResourceAnnotations,
    ResourceTemplate,
    ServerCapabilities,
)
from agent.messages import BinaryContent
from agent.models.test import TestModel


def test_mcp_error_from_the_sdk_keeps_message_code_and_data():
    error = MCPError.from_mcp_sdk(SDKMCPError(-32602, 'Unknown resource', {'uri': 'res://x'}))

    assert isinstance(error, RuntimeError)
    assert (error.message, error.code, error.data) == ('Unknown resource', -32602, {'uri': 'res://x'})
    assert str(error) == 'Unknown resource (MCP error -32602)'


def test_mcp_error_from_the_sdk_drops_data_that_is_not_an_object():
    assert MCPError.from_mcp_sdk(SDKMCPError(-1, 'odd', 'just text')).data is None


def test_resource_from_the_sdk_maps_every_field():
    sdk = types.Resource(
        name='readme',
        title='Read me',
        uri='res://readme',
        description='How to use this.',
        mime_type='text/plain',
        size=12,
        annotations=types.Annotations(audience=['user'], priority=0.5, last_modified='2025-01-02T03:04:05Z'),
        icons=[types.Icon(src='data:image/png;base64,AA==', mime_type='image/png', sizes=['16x16'])],
        _meta={'source': 'disk'},
    )

    assert Resource.from_mcp_sdk(sdk) == Resource(
        name='readme',
        title='Read me',
        description='How to use this.',
        mime_type='text/plain',
        annotations=ResourceAnnotations(audience=['user'], priority=0.5, last_modified='2025-01-02T03:04:05Z'),
        icons=[Icon(src='data:image/png;base64,AA==', mime_type='image/png', sizes=['16x16'])],
        metadata={'source': 'disk'},
        uri='res://readme',
        size=12,
    )


def test_resource_template_from_the_sdk_keeps_its_uri_template():
    sdk = types.ResourceTemplate(name='item', uri_template='res://items/{name}', description='An item.')

    template = ResourceTemplate.from_mcp_sdk(sdk)

    assert (template.name, template.uri_template, template.description) == ('item', 'res://items/{name}', 'An item.')
    assert template.annotations is None


def test_resource_annotation_priority_is_validated_at_the_boundary():
    adapter = pydantic.TypeAdapter(ResourceAnnotations)

    assert adapter.validate_python({'priority': 1.0}).priority == 1.0
    with pytest.raises(pydantic.ValidationError):
        adapter.validate_python({'priority': 1.5})


def test_server_capabilities_from_the_sdk_flatten_to_flags():
    sdk = types.ServerCapabilities(
        experimental={'beta': {}},
        logging=types.LoggingCapability(),
        tools=types.ToolsCapability(list_changed=True),
        resources=types.ResourcesCapability(list_changed=False),
    )

    assert ServerCapabilities.from_mcp_sdk(sdk) == ServerCapabilities(
        experimental=['beta'], logging=True, tools=True, tools_list_changed=True, resources=True
    )


@pytest.mark.parametrize(
    'result',
    [
        'text',
        {'city': 'Paris', 'celsius': 21},
        BinaryContent(b'\x89PNG', media_type='image/png'),
        ['a caption', BinaryContent(b'\x89PNG', media_type='image/png'), {'k': 1}],
    ],
)
def test_tool_results_round_trip_through_json_keeping_binary_content(result: object):
    data = TOOL_RESULT_ADAPTER.dump_json(result)

    assert TOOL_RESULT_ADAPTER.validate_json(data) == result


def test_an_instruction_part_renders_as_its_text_in_agent_instructions():
    def server_instructions() -> InstructionPart:
        return InstructionPart('Prefer metric units.', dynamic=True)

    agent = Agent(TestModel(), instructions=server_instructions)
    result = agent.run_sync('hi')

    first_request = result.all_messages()[0]
    assert getattr(first_request, 'instructions', None) == 'Prefer metric units.'
