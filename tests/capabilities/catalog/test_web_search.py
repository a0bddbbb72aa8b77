"""`WebSearch`: the native tool where supported, a local backend (if installed or given) otherwise."""

from __future__ import annotations

import importlib.machinery
import sys
import types
from typing import Any

import pytest

from agent import Agent, UserError
from agent.builtin_tools import WebSearchTool
from agent.capabilities import WebSearch
from agent.capabilities._web_search import installed_search_backend
from agent.messages import ModelRequest, ToolCallPart, ToolReturnPart

from ._models import Script


def _returns(result: Any) -> list[Any]:
    return [
        p.content
        for m in result.all_messages()
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    ]


@pytest.fixture
def no_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr('agent.capabilities._web_search.SEARCH_BACKENDS', ('no_such_search_backend',))


@pytest.fixture
def fake_ddgs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """A stand-in `ddgs` module (the real one would search the internet), recording the searches."""
    searches: list[tuple[str, int]] = []

    class DDGS:
        def text(self, query: str, max_results: int = 10) -> list[dict[str, str]]:
            searches.append((query, max_results))
            return [{'title': 'Temporal', 'href': 'https://temporal.io', 'body': 'Durable execution.'}]

    module = types.ModuleType('ddgs')
    module.__spec__ = importlib.machinery.ModuleSpec('ddgs', None)
    module.__dict__['DDGS'] = DDGS
    monkeypatch.setitem(sys.modules, 'ddgs', module)
    monkeypatch.setattr('agent.capabilities._web_search.SEARCH_BACKENDS', ('ddgs',))
    return searches


def test_models_with_native_search_get_the_native_tool_with_every_option() -> None:
    script = Script(['ok'], native={'web_search'})
    cap = WebSearch(search_context_size='high', user_location={'country': 'NO'}, allowed_domains=['a.org'], max_uses=1)
    Agent(script.model(), capabilities=[cap]).run_sync('news')
    assert script.offered[0].native_tools == [
        WebSearchTool(
            search_context_size='high', user_location={'country': 'NO'}, allowed_domains=['a.org'], max_uses=1
        )
    ]


def test_the_installed_backend_serves_models_without_native_search(fake_ddgs: list[tuple[str, int]]) -> None:
    assert installed_search_backend() == 'ddgs'
    script = Script([[ToolCallPart('web_search', {'query': 'durable execution'}, 's1')], 'found it'])
    result = Agent(script.model(), capabilities=[WebSearch(max_results=3)]).run_sync('search')
    assert result.output == 'found it'
    assert fake_ddgs == [('durable execution', 3)]
    assert _returns(result) == [[{'title': 'Temporal', 'url': 'https://temporal.io', 'snippet': 'Durable execution.'}]]


def test_without_a_backend_models_lacking_native_search_get_a_user_error_naming_the_extra(no_backend: None) -> None:
    agent = Agent(Script(['ok']).model(), capabilities=[WebSearch()])
    with pytest.raises(UserError, match=r"install the 'duckduckgo' extra \(pip install 'durable-agents\[duckduckgo\]'"):
        agent.run_sync('search')
    native = Script(['ok'], native={'web_search'})
    assert Agent(native.model(), capabilities=[WebSearch()]).run_sync('search').output == 'ok'
    with pytest.raises(UserError, match=r'WebSearch\(builtin=False\) needs a local fallback: no local search backend'):
        WebSearch(builtin=False)


def test_a_search_function_can_be_the_local_backend(no_backend: None) -> None:
    def search(query: str) -> str:
        """Search the company wiki."""
        return f'wiki results for {query}'

    script = Script([[ToolCallPart('search', {'query': 'holidays'}, 's1')], 'ok'])
    result = Agent(script.model(), capabilities=[WebSearch(local=search)]).run_sync('q')
    assert _returns(result) == ['wiki results for holidays']


@pytest.mark.parametrize(
    'constraint', [{'allowed_domains': ['example.com']}, {'blocked_domains': ['x.com']}, {'max_uses': 2}]
)
def test_constraints_only_the_native_tool_can_enforce_fail_on_models_without_it(
    constraint: dict[str, Any], fake_ddgs: list[tuple[str, int]]
) -> None:
    (field,) = constraint
    script = Script(['ok'])
    with pytest.raises(UserError, match=rf"WebSearch\({field}\) needs the native 'web_search' tool because the local"):
        Agent(script.model(), capabilities=[WebSearch(**constraint)]).run_sync('q')
    assert script.offered == []
    with pytest.raises(
        UserError,
        match=rf'WebSearch\({field}\) needs the native tool, which builtin=False turns off: '
        r'constraint fields require',
    ):
        WebSearch(builtin=False, **constraint)


def test_web_search_loads_from_a_spec_with_errors_naming_the_field() -> None:
    agent = Agent.from_spec({'model': 'test', 'capabilities': ['WebSearch', {'WebSearch': {'max_uses': 2}}]})
    assert agent.capabilities == [WebSearch(), WebSearch(max_uses=2)]
    with pytest.raises(UserError, match=r"Failed to instantiate capability 'WebSearch': search_context_size: Input"):
        Agent.from_spec({'model': 'test', 'capabilities': [{'WebSearch': {'search_context_size': 'huge'}}]})


def test_local_duckduckgo_names_the_backend_and_is_checked_when_built(
    fake_ddgs: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    script = Script([[ToolCallPart('web_search', {'query': 'workflows'}, 's1')], 'ok'])
    cap = WebSearch(local='duckduckgo', max_results=2)
    assert cap.get_native_tools() == [WebSearchTool()]
    Agent(script.model(), capabilities=[cap]).run_sync('q')
    assert fake_ddgs == [('workflows', 2)]

    with pytest.raises(UserError, match=r"WebSearch\(local='bing'\) is not a known strategy"):
        WebSearch(local='bing')
    monkeypatch.setattr('agent.capabilities._web_search.SEARCH_BACKENDS', ('no_such_search_backend',))
    with pytest.raises(UserError, match=r"WebSearch\(local='duckduckgo'\) cannot run: no local search backend"):
        WebSearch(local='duckduckgo')
    with pytest.raises(UserError, match='WebSearch'):
        Agent.from_spec({'model': 'test', 'capabilities': [{'WebSearch': {'local': 'bing'}}]})
