"""`web_fetch_tool`: fetch a web page for the model, refusing what it should not reach (see `FetchPolicy`).

`WebFetch` uses this same tool (`WebFetchLocalTool`) as its local side when the model cannot fetch natively.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent._tool import Tool
from agent.capabilities._fetch import FetchFailed, FetchPolicy, FetchRefused, download, render
from agent.exceptions import ModelRetry

__all__ = ('FetchPolicy', 'WebFetchLocalTool', 'safe_download', 'web_fetch_tool')

safe_download = download
"""GET a URL under a `FetchPolicy` (scheme, domains, public addresses only, every redirect checked, bounded time
and size); the tool looks it up here on each call."""

_EVERY_NETWORK = ('0.0.0.0/0', '::/0')


@dataclass(kw_only=True)
class WebFetchLocalTool:
    """The fetch itself: `policy` bounds what may be fetched, `max_content_length` how much text is returned."""

    policy: FetchPolicy = field(default_factory=FetchPolicy)
    """What may be fetched, and how long and how much a fetch may take."""
    max_content_length: int | None = None
    """Characters of text to return at most; the rest is cut off with a note. `None` for no limit."""

    async def __call__(self, url: str) -> str:
        """Fetch a web page over HTTP(S) and return its content (as Markdown for HTML pages).

        Args:
            url: The absolute http:// or https:// URL to fetch.
        """
        try:
            page = render(await safe_download(url, self.policy))
        except FetchRefused as exc:
            raise ModelRetry(f'Refused to fetch {url}: {exc}.') from exc
        except FetchFailed as exc:
            raise ModelRetry(f'Could not fetch {url}: {exc}.') from exc
        text, truncated = page.text, page.truncated
        if self.max_content_length is not None and len(text) > self.max_content_length:
            text, truncated = text[: self.max_content_length], True
        header = f'URL: {page.url}' + (f'\nHTTP status: {page.status_code}' if page.status_code >= 400 else '')
        return f'{header}\n\n{text}' + ('\n\n[content truncated]' if truncated else '')


def web_fetch_tool(
    *,
    max_content_length: int | None = 50_000,
    allow_local_urls: bool = False,
    timeout: float = 30,
    max_download_bytes: int = 50 * 1024 * 1024,
    allowed_domains: list[str] | None = None,
    blocked_domains: list[str] | None = None,
) -> Tool[Any]:
    """A `web_fetch` tool returning pages as Markdown text.

    Args:
        max_content_length: Characters of text to return at most (`None` for no limit).
        allow_local_urls: Whether loopback, private and other non-public addresses may be fetched.
        timeout: Seconds a fetch may take, redirects and DNS included.
        max_download_bytes: Bytes of a response body to read at most.
        allowed_domains: If set, the only domains that may be fetched (subdomains included).
        blocked_domains: Domains that may never be fetched (subdomains included).
    """
    policy = FetchPolicy(
        allowed_domains=allowed_domains,
        blocked_domains=blocked_domains,
        allowed_networks=_EVERY_NETWORK if allow_local_urls else (),
        timeout=timeout,
        max_bytes=max_download_bytes,
    )
    fetcher = WebFetchLocalTool(policy=policy, max_content_length=max_content_length)
    return Tool[Any](fetcher.__call__, name='web_fetch')
