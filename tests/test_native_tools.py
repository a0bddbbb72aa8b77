"""The native tools added for Pydantic AI parity: their kinds and fields, and models that cannot run them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from pydantic import TypeAdapter

from agent import (
    Agent,
    CodeExecutionTool,
    FileSearchTool,
    MemoryTool,
    UrlContextTool,
    UserError,
    WebFetchTool,
    WebSearchTool,
    XSearchTool,
)
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models import ModelProfile
from agent.models.function import AgentInfo, FunctionModel
from agent.native_tools import NATIVE_TOOL_TYPES, AbstractNativeTool
from agent.tools import ToolDefinition


def test_new_native_tools_have_pydantic_ai_kinds_and_are_registered() -> None:
    tools = [FileSearchTool(file_store_ids=['vs_1']), MemoryTool(), XSearchTool()]
    assert [tool.kind for tool in tools] == ['file_search', 'memory', 'x_search']
    assert {kind: NATIVE_TOOL_TYPES[kind] for kind in ('file_search', 'memory', 'x_search', 'url_context')} == {
        'file_search': FileSearchTool,
        'memory': MemoryTool,
        'x_search': XSearchTool,
        'url_context': UrlContextTool,
    }


def test_x_search_tool_checks_its_handles() -> None:
    tool = XSearchTool(allowed_x_handles=['pydantic'], from_date=datetime(2025, 1, 1), include_output=True)
    assert (tool.allowed_x_handles, tool.include_output) == (['pydantic'], True)
    with pytest.raises(ValueError, match='not both'):
        XSearchTool(allowed_x_handles=['a'], excluded_x_handles=['b'])
    with pytest.raises(ValueError, match='at most 10'):
        XSearchTool(excluded_x_handles=[f'h{i}' for i in range(11)])


def test_url_context_tool_is_deprecated_and_keeps_its_kind() -> None:
    with pytest.warns(DeprecationWarning, match='WebFetchTool'):
        tool = UrlContextTool(max_uses=2)
    assert isinstance(tool, WebFetchTool)
    assert tool.kind == 'url_context'


def _reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    kinds = [tool.kind for tool in info.model_request_parameters.native_tools]
    return ModelResponse(
        parts=[TextPart(f'{kinds} {[type(t).__name__ for t in info.model_request_parameters.native_tools]}')]
    )


@pytest.mark.parametrize(
    'tool', [FileSearchTool(file_store_ids=['vs_1']), MemoryTool(), XSearchTool()], ids=lambda t: t.kind
)
def test_model_without_support_refuses_new_native_tools(tool: Any) -> None:
    agent = Agent(FunctionModel(_reply, profile=ModelProfile()), native_tools=[tool])
    with pytest.raises(UserError, match=f'does not support the native tool .*{tool.kind}.*not supported by this model'):
        agent.run_sync('hi')


def test_a_function_model_supports_every_native_tool_unless_its_profile_narrows_that() -> None:
    tools = [WebSearchTool(), CodeExecutionTool(), MemoryTool()]
    assert Agent(FunctionModel(_reply), native_tools=tools).run_sync('hi').output == (
        "['web_search', 'code_execution', 'memory'] ['WebSearchTool', 'CodeExecutionTool', 'MemoryTool']"
    )
    # A profile may name the supported tools by class, as Pydantic AI's profiles do.
    searching = FunctionModel(_reply, profile=ModelProfile(supported_native_tools=frozenset({WebSearchTool})))
    assert Agent(searching, native_tools=[WebSearchTool()]).run_sync('hi').output == "['web_search'] ['WebSearchTool']"
    with pytest.raises(UserError, match="kind 'code_execution'"):
        Agent(searching, native_tools=[CodeExecutionTool()]).run_sync('hi')


def test_an_optional_native_tool_is_left_out_on_a_model_without_it() -> None:
    searching = FunctionModel(_reply, profile=ModelProfile(supported_native_tools=frozenset({'web_search'})))
    agent = Agent(searching, native_tools=[WebSearchTool(), CodeExecutionTool(optional=True)])
    assert agent.run_sync('hi').output == "['web_search'] ['WebSearchTool']"


def test_native_tools_dumped_together_load_back_as_their_classes_by_kind() -> None:
    adapter = TypeAdapter(list[AbstractNativeTool])
    tools = [WebFetchTool(max_uses=3), WebSearchTool(allowed_domains=['example.com']), CodeExecutionTool()]
    dumped = adapter.dump_python(tools)
    assert dumped[0] == {
        'kind': 'web_fetch',
        'optional': False,
        'allowed_domains': None,
        'blocked_domains': None,
        'max_uses': 3,
        'enable_citations': False,
        'max_content_tokens': None,
    }
    assert adapter.validate_python(dumped) == tools
    with pytest.warns(DeprecationWarning, match='WebFetchTool'):
        (old,) = adapter.validate_python([{'kind': 'url_context', 'max_uses': 1}])
    assert isinstance(old, UrlContextTool)
    assert (old.kind, old.max_uses) == ('url_context', 1)


def test_model_supporting_a_native_tool_receives_it() -> None:
    model = FunctionModel(_reply, profile=ModelProfile(supported_native_tools=frozenset({'memory'})))
    assert Agent(model, native_tools=[MemoryTool()]).run_sync('hi').output == "['memory'] ['MemoryTool']"


def test_url_context_tool_runs_as_web_fetch_on_models_that_fetch() -> None:
    model = FunctionModel(_reply, profile=ModelProfile(supported_native_tools=frozenset({'web_fetch'})))
    with pytest.warns(DeprecationWarning, match='WebFetchTool'):
        tool = UrlContextTool(max_uses=2)
    assert Agent(model, native_tools=[tool]).run_sync('hi').output == "['web_fetch'] ['WebFetchTool']"


def test_function_tools_are_unaffected_by_native_tool_kinds() -> None:
    # A ToolDefinition never carries a native kind: the registry only holds native tool classes.
    assert 'function' not in NATIVE_TOOL_TYPES
    assert ToolDefinition(name='t').kind == 'function'
