"""The capabilities guide's examples of built-in and provider-adaptive capabilities, after the import rename.

Each example is first built exactly as written (hosted model names included, with a placeholder API key and
no request made), then run with a scripted model in its place whose profile says which native tools it has.
Web examples fetch from a server the test starts on the loopback interface; the DuckDuckGo backend is
replaced by a stand-in module, since the real one would search the internet. MCP examples are covered with
the MCP capability.
"""

from __future__ import annotations

import importlib.machinery
import sys
import types
from typing import Any

import pytest

from agent import Agent, UserError
from agent.builtin_tools import CodeExecutionTool, ImageGenerationTool, WebSearchTool
from agent.capabilities import BuiltinOrLocalTool, ImageGeneration, Thinking, WebFetch, WebSearch
from agent.messages import ModelRequest, RetryPromptPart, ToolCallPart, ToolReturnPart
from tests.capabilities.catalog._models import Script
from tests.capabilities.catalog._web_server import web_server


@pytest.fixture(autouse=True)
def placeholder_api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('ANTHROPIC_API_KEY', 'placeholder')
    monkeypatch.setenv('OPENAI_API_KEY', 'placeholder')


@pytest.fixture
def duckduckgo(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A stand-in for the `ddgs` package the 'duckduckgo' extra installs; records the queries."""
    queries: list[str] = []

    class DDGS:
        def text(self, query: str, max_results: int = 10) -> list[dict[str, str]]:
            queries.append(query)
            return [{'title': 'Paris', 'href': 'https://en.wikipedia.org/wiki/Paris', 'body': 'Capital of France.'}]

    module = types.ModuleType('ddgs')
    module.__spec__ = importlib.machinery.ModuleSpec('ddgs', None)
    module.__dict__['DDGS'] = DDGS
    monkeypatch.setitem(sys.modules, 'ddgs', module)
    monkeypatch.setattr('agent.capabilities._web_search.SEARCH_BACKENDS', ('ddgs',))
    return queries


def _parts(result: Any, kind: type[Any]) -> list[Any]:
    return [p for m in result.all_messages() if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, kind)]


def test_builtin_capabilities_example() -> None:
    agent = Agent(
        'anthropic:claude-opus-4-6',
        instructions='You are a research assistant. Be thorough and cite sources.',
        capabilities=[
            Thinking(effort='high'),
            WebSearch(),
        ],
    )
    assert agent.capabilities == [Thinking(effort='high'), WebSearch()]

    script = Script(['Paris, according to several sources.'], native={'web_search'})
    result = agent.run_sync('What is the capital of France?', model=script.model())
    assert result.output == 'Paris, according to several sources.'
    assert script.offered[0].native_tools == [WebSearchTool()]
    assert script.offered[0].function_tools == []


def test_provider_adaptive_tools_example(duckduckgo: list[str]) -> None:
    capabilities = [
        # Auto-detects DuckDuckGo as local fallback
        WebSearch(),
        # Auto-detects markdownify-based fetch as local fallback
        WebFetch(),
        # Builtin when the model supports it; falls back to a subagent
        # running the specified LLM with image generation support
        ImageGeneration(fallback_model='openai-responses:gpt-5.4'),
    ]
    Agent('anthropic:claude-sonnet-4-6', capabilities=capabilities)

    with web_server() as server:
        # A model with native image generation only: search and fetch fall back to local tools.
        script = Script(
            [
                [
                    ToolCallPart('web_search', {'query': 'capital of France'}, 's1'),
                    ToolCallPart('web_fetch', {'url': f'{server.base_url}/page'}, 'f1'),
                ],
                'Paris.',
            ],
            native={'image_generation'},
        )
        result = Agent(script.model(), capabilities=capabilities).run_sync('What is the capital of France?')
    assert result.output == 'Paris.'
    assert script.offered[0].native_tools == [ImageGenerationTool()]
    assert script.offered[0].function_tools == ['web_search', 'web_fetch']
    assert duckduckgo == ['capital of France']
    (search_results,) = [p.content for p in _parts(result, ToolReturnPart)]
    assert search_results == [
        {'title': 'Paris', 'url': 'https://en.wikipedia.org/wiki/Paris', 'snippet': 'Capital of France.'}
    ]
    # WebFetch() as written refuses this machine's own addresses; the server was never asked.
    (refused,) = _parts(result, RetryPromptPart)
    assert 'is a loopback address, which may not be fetched' in refused.content
    assert server.requested == []


def test_provider_adaptive_fetch_reaches_a_local_server_once_allowed() -> None:
    with web_server() as server:
        script = Script([[ToolCallPart('web_fetch', {'url': f'{server.base_url}/page'}, 'f1')], 'Welcome page.'])
        agent = Agent(script.model(), capabilities=[WebFetch(allowed_networks=['127.0.0.1/32'])])
        result = agent.run_sync('What does the page say?')
    assert server.requested == ['/page']
    (page,) = [p.content for p in _parts(result, ToolReturnPart)]
    assert '# Welcome\n\nServed from **this machine**.' in page


def test_constraints_example() -> None:
    # Only search example.com — requires builtin support
    search = WebSearch(allowed_domains=['example.com'])
    # Only fetch example.com — enforced locally when builtin is unavailable
    fetch = WebFetch(allowed_domains=['example.com'])

    with pytest.raises(UserError, match=r"WebSearch\(allowed_domains\) needs the native 'web_search' tool"):
        Agent(Script(['unused']).model(), capabilities=[search]).run_sync('search')

    script = Script([[ToolCallPart('web_fetch', {'url': 'https://elsewhere.org/'}, 'f1')], 'Not allowed.'])
    result = Agent(script.model(), capabilities=[fetch]).run_sync('fetch')
    (refused,) = _parts(result, RetryPromptPart)
    assert "the domain 'elsewhere.org' is not among the allowed domains ['example.com']" in refused.content

    native = Script(['ok'], native={'web_search'})
    Agent(native.model(), capabilities=[search]).run_sync('search')
    assert native.offered[0].native_tools == [WebSearchTool(allowed_domains=['example.com'])]


def test_custom_builtin_or_local_example() -> None:
    def my_local_executor(code: str) -> str:
        """Run Python code in a local sandbox."""
        return f'executed {code}'

    cap = BuiltinOrLocalTool(builtin=CodeExecutionTool(), local=my_local_executor)

    native = Script(['4'], native={'code_execution'})
    Agent(native.model(), capabilities=[cap]).run_sync('2+2?')
    assert (native.offered[0].native_tools, native.offered[0].function_tools) == ([CodeExecutionTool()], [])

    local = Script([[ToolCallPart('my_local_executor', {'code': '2+2'}, 'c1')], '4'])
    result = Agent(local.model(), capabilities=[cap]).run_sync('2+2?')
    assert [p.content for p in _parts(result, ToolReturnPart)] == ['executed 2+2']
