"""`agent.common_tools.duckduckgo`: the search tool on its own, on a stand-in `ddgs` (the real one goes online)."""

from __future__ import annotations

import importlib
import sys
import types
from types import ModuleType
from typing import Any

import pytest

from agent import Agent
from agent.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel

MODULE = 'agent.common_tools.duckduckgo'


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int | None]]:
    """Installs a stand-in `ddgs` module recording each search, and forgets any earlier import of the tool module."""
    recorded: list[tuple[str, int | None]] = []

    class DDGS:
        def text(self, query: str, max_results: int | None = None) -> list[dict[str, str]]:
            recorded.append((query, max_results))
            return [{'title': 'Temporal', 'href': 'https://temporal.io', 'body': 'Durable execution.'}]

    module = types.ModuleType('ddgs')
    module.DDGS = DDGS  # pyright: ignore[reportAttributeAccessIssue]
    monkeypatch.setitem(sys.modules, 'ddgs', module)
    monkeypatch.delitem(sys.modules, MODULE, raising=False)
    return recorded


def _searching_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    for part in messages[-1].parts:
        if isinstance(part, ToolReturnPart):
            return ModelResponse(parts=[TextPart(repr(part.content))])
    return ModelResponse(parts=[ToolCallPart(info.function_tools[0].name, {'query': 'durable agents'})])


async def test_the_tool_searches_with_a_new_client_and_returns_validated_results(
    searches: list[tuple[str, int | None]],
) -> None:
    duckduckgo: Any = importlib.import_module(MODULE)
    tool = duckduckgo.duckduckgo_search_tool(max_results=2)
    assert tool.name == 'duckduckgo_search'
    result = await Agent(FunctionModel(_searching_model), tools=[tool]).run('search')
    assert result.output == repr([{'title': 'Temporal', 'href': 'https://temporal.io', 'body': 'Durable execution.'}])
    assert searches == [('durable agents', 2)]


def test_without_a_backend_the_import_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    missing: dict[str, ModuleType | None] = {'ddgs': None, 'duckduckgo_search': None}
    for name, value in missing.items():
        monkeypatch.setitem(sys.modules, name, value)
    monkeypatch.delitem(sys.modules, MODULE, raising=False)
    with pytest.raises(ImportError, match=r'durable-agents\[duckduckgo\]'):
        importlib.import_module(MODULE)
