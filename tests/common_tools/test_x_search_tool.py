"""`agent.common_tools.x_search`: the X search tool on its own, the same one `XSearch` falls back to."""

from __future__ import annotations

import pytest

from agent import Agent
from agent._warnings import PydanticAIDeprecationWarning
from agent.builtin_tools import XSearchTool
from agent.common_tools.x_search import XSearchSubagentTool, x_search_tool
from agent.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart
from agent.models import ModelProfile
from agent.models.function import AgentInfo, FunctionModel


async def test_the_tool_runs_a_subagent_with_the_native_x_search() -> None:
    seen_native: list[list[object]] = []

    def searcher(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen_native.append([p.content for m in messages for p in m.parts if isinstance(p, UserPromptPart)])
        return ModelResponse(parts=[TextPart('three posts about Temporal')])

    def outer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
        if returns:
            return ModelResponse(parts=[TextPart(f'found: {returns[0].content}')])
        return ModelResponse(parts=[ToolCallPart('x_search', {'query': 'temporal'})])

    xai = FunctionModel(searcher, profile=ModelProfile(supported_native_tools=frozenset({XSearchTool})))
    agent = Agent(FunctionModel(outer), tools=[x_search_tool(xai, XSearchTool(allowed_x_handles=['temporalio']))])
    result = await agent.run('what is new?')
    assert result.output == 'found: three posts about Temporal'
    assert seen_native == [['temporal']]


def test_old_argument_and_attribute_names_warn_and_still_work() -> None:
    native = XSearchTool()
    with pytest.warns(PydanticAIDeprecationWarning, match='native_tool'):
        assert x_search_tool('xai:grok-4', builtin_tool=native).name == 'x_search'
    searcher = XSearchSubagentTool(model='xai:grok-4', native_tool=native)
    with pytest.warns(PydanticAIDeprecationWarning, match='native_tool'):
        assert searcher.builtin_tool is native
    with pytest.raises(AttributeError, match='no_such'):
        searcher.no_such  # noqa: B018


def test_unknown_or_missing_arguments_are_type_errors() -> None:
    with pytest.raises(TypeError, match='unexpected keyword arguments: `extra`'):
        x_search_tool('xai:grok-4', XSearchTool(), extra=1)
    with pytest.raises(TypeError, match="missing required argument: 'native_tool'"):
        x_search_tool('xai:grok-4')
