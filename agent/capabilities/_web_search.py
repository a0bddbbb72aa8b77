"""`WebSearch`: web search by the provider where the model supports it, by a local backend otherwise."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass
from typing import Any, Literal

from agent._tool import AgentDepsT, Tool
from agent.builtin_tools import AbstractBuiltinTool, WebSearchTool, WebSearchUserLocation
from agent.exceptions import UserError

from ._builtin_or_local import BuiltinOrLocalTool, LocalTool

__all__ = ('WebSearch', 'WebSearchLocalStrategy')

WebSearchLocalStrategy = Literal['duckduckgo']
"""The local search backends `WebSearch(local=...)` can name."""

SEARCH_BACKENDS = ('ddgs', 'duckduckgo_search')
"""Modules offering a `DDGS` class with `text(query, max_results=...)`, tried in this order."""

EXTRA = 'duckduckgo'
"""The optional dependency group that installs a local search backend."""


def installed_search_backend() -> str | None:
    """The first importable module of `SEARCH_BACKENDS`, or `None`."""
    for name in SEARCH_BACKENDS:
        try:
            found = importlib.util.find_spec(name) is not None
        except ValueError:  # imported already, without a module spec
            found = name in sys.modules
        if found:
            return name
    return None


@dataclass(kw_only=True)
class WebSearch(BuiltinOrLocalTool[AgentDepsT]):
    """Lets the model search the web: the native `WebSearchTool` if supported, else a local `web_search` tool.

    ```python
    WebSearch()                               # native, or DuckDuckGo locally (the 'duckduckgo' extra)
    WebSearch(allowed_domains=['example.com'])  # needs the native tool: a UserError on other models
    WebSearch(local=my_search_function)       # your own local backend
    WebSearch(local='duckduckgo')             # DuckDuckGo locally, checked to be installed right away
    ```

    The local tool uses the `ddgs` package (installed by the `duckduckgo` extra) if it is there; without it, and
    without `local=...`, a model lacking native web search gets a `UserError` naming the extra. Domain and
    use limits (`allowed_domains`, `blocked_domains`, `max_uses`) need the native tool, since a local search
    cannot enforce them; `search_context_size` and `user_location` are hints the local tool ignores.
    """

    search_context_size: Literal['low', 'medium', 'high'] = 'medium'
    """How much of the search results the provider puts in the model's context."""
    user_location: WebSearchUserLocation | None = None
    """Where the user is, for localised results."""
    blocked_domains: list[str] | None = None
    """Domains never to return results from (needs the native tool)."""
    allowed_domains: list[str] | None = None
    """If set, the only domains to return results from (needs the native tool)."""
    max_uses: int | None = None
    """The most searches per request (needs the native tool)."""
    max_results: int = 5
    """Local tool: how many results a search returns."""

    def default_builtin(self) -> AbstractBuiltinTool | None:
        return WebSearchTool(
            search_context_size=self.search_context_size,
            user_location=self.user_location,
            blocked_domains=self.blocked_domains,
            allowed_domains=self.allowed_domains,
            max_uses=self.max_uses,
        )

    def builtin_only_fields(self) -> list[str]:
        constraints = ('allowed_domains', 'blocked_domains', 'max_uses')
        return [name for name in constraints if getattr(self, name) is not None]

    def local_unavailable_reason(self) -> str:
        return (
            f'no local search backend is installed: install the {EXTRA!r} extra '
            f"(pip install 'durable-agents[{EXTRA}]', which provides the ddgs package), "
            'or pass local=<a search function>'
        )

    def local_strategy(self, name: str) -> LocalTool:
        if name != 'duckduckgo':
            raise UserError(f"WebSearch(local={name!r}) is not a known strategy; the known one is 'duckduckgo'")
        tool = self.default_local()
        if tool is None:
            raise UserError(f"WebSearch(local='duckduckgo') cannot run: {self.local_unavailable_reason()}")
        return tool

    def default_local(self) -> LocalTool | None:
        backend = installed_search_backend()
        if backend is None:
            return None
        try:
            from agent.common_tools.duckduckgo import DuckDuckGoSearchTool
        except ImportError:
            return None
        max_results = self.max_results

        async def web_search(query: str) -> list[dict[str, str]]:
            """Search the web; returns the top results, each with a title, URL and snippet.

            Args:
                query: What to search for.
            """
            # The client comes from the backend module found now, so a backend installed (or replaced) later counts.
            client = importlib.import_module(backend).DDGS()
            found = await DuckDuckGoSearchTool(client=client, max_results=max_results)(query)
            return [{'title': r['title'], 'url': r['href'], 'snippet': r['body']} for r in found]

        return Tool[Any](web_search)

    @classmethod
    def from_spec(
        cls,
        *,
        search_context_size: Literal['low', 'medium', 'high'] = 'medium',
        user_location: WebSearchUserLocation | None = None,
        blocked_domains: list[str] | None = None,
        allowed_domains: list[str] | None = None,
        max_uses: int | None = None,
        max_results: int = 5,
        builtin: bool = True,
        native: bool | None = None,
        local: bool | WebSearchLocalStrategy | None = None,
        id: str | None = None,
        description: str | None = None,
        defer_loading: bool = False,
    ) -> WebSearch[Any]:
        """Build from a spec entry (the fields, with `builtin` (or `native`) as a boolean and `local` as a boolean
        or a strategy's name)."""
        return cls(
            search_context_size=search_context_size,
            user_location=user_location,
            blocked_domains=blocked_domains,
            allowed_domains=allowed_domains,
            max_uses=max_uses,
            max_results=max_results,
            builtin=builtin,
            native=native,
            id=id,
            description=description,
            defer_loading=defer_loading,
            local=local,
        )
