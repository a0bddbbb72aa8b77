"""`duckduckgo_search_tool`: web search through DuckDuckGo, with the `ddgs` package (the `duckduckgo` extra).

`WebSearch` runs its local `web_search` tool on `DuckDuckGoSearchTool` when the model cannot search natively.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from agent._threads import run_sync_in_thread
from agent._tool import Tool

try:
    try:
        from ddgs import DDGS  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
    except ImportError:  # `ddgs` was called `duckduckgo_search` before
        from duckduckgo_search import DDGS  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
except ImportError as _missing:
    raise ImportError(
        "DuckDuckGo search needs the `ddgs` package: install the 'duckduckgo' extra "
        "(pip install 'durable-agents[duckduckgo]')"
    ) from _missing

__all__ = ('DDGS', 'DuckDuckGoResult', 'DuckDuckGoSearchTool', 'duckduckgo_search_tool')


class DuckDuckGoResult(TypedDict):
    """One search result."""

    title: str
    """The page's title."""
    href: str
    """The page's URL."""
    body: str
    """A snippet of the page."""


_results = TypeAdapter(list[DuckDuckGoResult])


@dataclass(kw_only=True)
class DuckDuckGoSearchTool:
    """The search itself: `client.text(query, max_results=...)`, run in a thread since the client blocks."""

    client: Any
    """A `DDGS` client (or anything with the same `text` method)."""
    max_results: int | None = None
    """How many results to return at most; `None` for the first page of results."""

    async def __call__(self, query: str) -> list[DuckDuckGoResult]:
        """Search DuckDuckGo and return the results, each with a title, URL (`href`) and snippet (`body`).

        Args:
            query: What to search for.
        """
        found = await run_sync_in_thread(self._text, query)
        return _results.validate_python(found)

    def _text(self, query: str) -> list[Any]:
        return list(self.client.text(query, max_results=self.max_results) or [])


def duckduckgo_search_tool(duckduckgo_client: Any | None = None, max_results: int | None = None) -> Tool[Any]:
    """A `duckduckgo_search` tool on `duckduckgo_client` (a new `DDGS()` by default)."""
    searcher = DuckDuckGoSearchTool(client=duckduckgo_client or DDGS(), max_results=max_results)
    return Tool[Any](searcher.__call__, name='duckduckgo_search')
