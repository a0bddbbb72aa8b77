"""The native tools added for Pydantic AI parity: their kinds and fields, and models that cannot run them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from agent import Agent, FileSearchTool, MemoryTool, UrlContextTool, UserError, WebFetchTool, XSearchTool
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models import ModelProfile
from agent.models.function import AgentInfo, FunctionModel
from agent.native_tools import NATIVE_TOOL_TYPES
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
    agent = Agent(FunctionModel(_reply), native_tools=[tool])
    with pytest.raises(UserError, match=f'does not support the native tool .*{tool.kind}'):
        agent.run_sync('hi')


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
