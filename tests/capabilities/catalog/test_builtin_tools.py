"""Native tool definitions: fields, the kind registry, the JSON round trip, and how a model settles them."""

from __future__ import annotations

from dataclasses import dataclass

import pydantic
import pytest

from agent import ToolDefinition, UserError, builtin_tools, native_tools
from agent.builtin_tools import (
    BUILTIN_TOOL_TYPES,
    AbstractBuiltinTool,
    CodeExecutionTool,
    ImageGenerationTool,
    MCPServerTool,
    ToolSearchTool,
    WebFetchTool,
    WebSearchTool,
    builtin_tool_from_spec,
)
from agent.models import ModelProfile, ModelRequestParameters
from agent.models.test import TestModel


def test_every_native_tool_has_its_kind_and_is_registered_under_it() -> None:
    tools = [
        WebSearchTool(),
        WebFetchTool(),
        CodeExecutionTool(),
        ImageGenerationTool(),
        MCPServerTool(id='docs', url='https://mcp.example.com'),
        ToolSearchTool(),
    ]
    kinds = [tool.kind for tool in tools]
    assert kinds == ['web_search', 'web_fetch', 'code_execution', 'image_generation', 'mcp_server', 'tool_search']
    assert all(BUILTIN_TOOL_TYPES[tool.kind] is type(tool) for tool in tools)


def test_the_abstract_base_cannot_be_instantiated_but_custom_tools_register_themselves() -> None:
    with pytest.raises(TypeError, match='abstract'):
        AbstractBuiltinTool()

    @dataclass(kw_only=True)
    class SandboxTool(AbstractBuiltinTool):
        kind: str = 'test_sandbox'
        image: str = 'python'

    assert BUILTIN_TOOL_TYPES['test_sandbox'] is SandboxTool
    del BUILTIN_TOOL_TYPES['test_sandbox']


def test_mcp_server_tools_are_told_apart_by_their_id() -> None:
    assert MCPServerTool(id='a', url='https://a').unique_id == 'mcp_server:a'
    assert WebSearchTool().unique_id == 'web_search'


def test_request_parameters_with_native_tools_round_trip_through_json() -> None:
    params = ModelRequestParameters(
        native_tools=[
            WebSearchTool(max_uses=2, user_location={'city': 'Paris', 'country': 'FR'}, allowed_domains=['a.org']),
            MCPServerTool(id='docs', url='https://mcp.example.com', headers={'X-Key': '1'}, allowed_tools=['search']),
            ImageGenerationTool(size='1024x1024', quality='high'),
            CodeExecutionTool(),
            {'kind': 'provider_specific', 'option': 1},
        ]
    )
    adapter = pydantic.TypeAdapter(ModelRequestParameters)
    restored = adapter.validate_json(adapter.dump_json(params))
    assert restored.native_tools == params.native_tools
    assert [type(tool) for tool in restored.native_tools] == [
        WebSearchTool,
        MCPServerTool,
        ImageGenerationTool,
        CodeExecutionTool,
        dict,
    ]


def test_native_names_are_the_same_classes() -> None:
    assert native_tools.AbstractNativeTool is builtin_tools.AbstractBuiltinTool
    assert native_tools.WebSearchTool is builtin_tools.WebSearchTool
    assert native_tools.NATIVE_TOOL_TYPES is builtin_tools.BUILTIN_TOOL_TYPES


def test_tools_build_from_spec_data_with_errors_naming_the_bad_field() -> None:
    assert builtin_tool_from_spec('web_search', max_uses=3) == WebSearchTool(max_uses=3)
    with pytest.raises(UserError, match=r"Unknown native tool kind 'web_serch'; known kinds: .*web_search"):
        builtin_tool_from_spec('web_serch')
    with pytest.raises(UserError, match=r"WebSearchTool has no field\(s\) \['max_use'\]"):
        builtin_tool_from_spec('web_search', max_use=3)
    with pytest.raises(pydantic.ValidationError, match='max_uses'):
        builtin_tool_from_spec('web_search', max_uses='often')


def _fallback(name: str, kind: str) -> ToolDefinition:
    return ToolDefinition(name=name, unless_native=kind)


def test_a_supported_native_tool_is_sent_and_its_local_fallbacks_are_dropped() -> None:
    params = ModelRequestParameters(
        native_tools=[WebSearchTool()], function_tools=[_fallback('search', 'web_search'), ToolDefinition(name='add')]
    )
    model = TestModel(profile=ModelProfile(supported_native_tools=frozenset({'web_search'})))
    _, prepared = model.prepare_request(None, params)
    assert prepared.native_tools == [WebSearchTool()]
    assert [t.name for t in prepared.function_tools] == ['add']


def test_an_unsupported_native_tool_gives_way_to_its_local_fallback() -> None:
    params = ModelRequestParameters(native_tools=[WebSearchTool()], function_tools=[_fallback('search', 'web_search')])
    no_native_tools = TestModel(profile=ModelProfile())
    _, prepared = no_native_tools.prepare_request(None, params)
    assert prepared.native_tools == []
    assert [t.name for t in prepared.function_tools] == ['search']
    # Preparing again gives the same request.
    _, again = no_native_tools.prepare_request(None, prepared)
    assert again == prepared


def test_an_unsupported_native_tool_without_fallback_is_a_user_error() -> None:
    params = ModelRequestParameters(native_tools=[WebSearchTool(allowed_domains=['example.com'])])
    with pytest.raises(
        UserError,
        match=r"test:test does not support the native tool WebSearchTool\(allowed_domains=\['example.com'\]\)",
    ):
        TestModel(profile=ModelProfile()).prepare_request(None, params)


def test_with_native_tools_stay_unless_hidden_and_their_native_tool_is_not_in_use() -> None:
    corpus = ToolDefinition(name='corpus', with_native='tool_search', defer_loading=True)
    visible = ToolDefinition(name='visible', with_native='tool_search')
    params = ModelRequestParameters(function_tools=[corpus, visible])
    _, without = TestModel().prepare_request(None, params)
    assert [t.name for t in without.function_tools] == ['visible']

    searching = TestModel(profile=ModelProfile(supported_native_tools=frozenset({'tool_search'})))
    _, with_search = searching.prepare_request(
        None, ModelRequestParameters(native_tools=[ToolSearchTool()], function_tools=[corpus, visible])
    )
    assert [t.name for t in with_search.function_tools] == ['corpus', 'visible']
