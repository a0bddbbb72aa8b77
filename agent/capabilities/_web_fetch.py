"""`WebFetch`: URL fetching, by the provider where the model supports it, locally (and safely) otherwise."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Any

from agent._tool import AgentDepsT, Tool
from agent.builtin_tools import AbstractBuiltinTool, WebFetchTool
from agent.exceptions import UserError

from ._builtin_or_local import BuiltinOrLocalTool, LocalTool
from ._fetch import FetchPolicy

__all__ = ('WebFetch',)

_CHARS_PER_TOKEN = 4
"""A rough size of a token, to apply `max_content_tokens` to text locally."""


@dataclass(kw_only=True)
class WebFetch(BuiltinOrLocalTool[AgentDepsT]):
    """Lets the model fetch web pages: the native `WebFetchTool` if supported, else a local `web_fetch` tool.

    ```python
    WebFetch(allowed_domains=['example.com'])  # enforced by the provider, or locally
    ```

    The local tool fetches over HTTP(S) and returns the page as Markdown. It refuses other schemes, domains
    outside `allowed_domains` or in `blocked_domains`, and any host that resolves to a loopback, link-local,
    private or otherwise non-public address unless `allowed_networks` lists it; redirects are checked the
    same way, and the fetch is bounded in time (`timeout`) and size (`max_bytes`). A refused or failed fetch
    is reported to the model as a retry prompt.
    """

    allowed_domains: list[str] | None = None
    """If set, the only domains that may be fetched (subdomains included); enforced locally too."""
    blocked_domains: list[str] | None = None
    """Domains that may never be fetched (subdomains included); enforced locally too."""
    max_uses: int | None = None
    """The most fetches per request; only the native tool can enforce it."""
    enable_citations: bool = False
    """Whether the provider cites the fetched content (the local tool has no citations)."""
    max_content_tokens: int | None = None
    """Truncate fetched content beyond about this many tokens."""
    allowed_networks: list[str] = field(default_factory=list[str])
    """Local tool: non-public networks it may reach (CIDR), e.g. `['127.0.0.1/32']` for a service on this host."""
    timeout: float = 10.0
    """Local tool: seconds a fetch may take, redirects and DNS included."""
    max_bytes: int = 1_000_000
    """Local tool: bytes of a response body to read at most."""
    max_redirects: int = 5
    """Local tool: redirects to follow at most."""

    def __post_init__(self) -> None:
        for network in self.allowed_networks:
            try:
                ipaddress.ip_network(network, strict=False)
            except ValueError as exc:
                raise UserError(f'WebFetch(allowed_networks=...): {network!r} is not a network: {exc}') from exc
        super().__post_init__()

    def default_builtin(self) -> AbstractBuiltinTool | None:
        return WebFetchTool(
            allowed_domains=self.allowed_domains,
            blocked_domains=self.blocked_domains,
            max_uses=self.max_uses,
            enable_citations=self.enable_citations,
            max_content_tokens=self.max_content_tokens,
        )

    def builtin_only_fields(self) -> list[str]:
        return ['max_uses'] if self.max_uses is not None else []

    def fetch_policy(self) -> FetchPolicy:
        """What the local tool may fetch."""
        return FetchPolicy(
            allowed_domains=self.allowed_domains,
            blocked_domains=self.blocked_domains,
            allowed_networks=tuple(self.allowed_networks),
            timeout=self.timeout,
            max_bytes=self.max_bytes,
            max_redirects=self.max_redirects,
        )

    def local_strategy(self, name: str) -> LocalTool:
        raise UserError(f'WebFetch(local={name!r}) is not a known strategy: use local=True for the built-in fetcher')

    def default_local(self) -> LocalTool | None:
        try:
            from agent.common_tools.web_fetch import WebFetchLocalTool
        except ImportError:
            return None
        max_chars = self.max_content_tokens * _CHARS_PER_TOKEN if self.max_content_tokens is not None else None
        fetcher = WebFetchLocalTool(policy=self.fetch_policy(), max_content_length=max_chars)
        return Tool[Any](fetcher.__call__, name='web_fetch')

    @classmethod
    def from_spec(
        cls,
        *,
        allowed_domains: list[str] | None = None,
        blocked_domains: list[str] | None = None,
        max_uses: int | None = None,
        enable_citations: bool = False,
        max_content_tokens: int | None = None,
        allowed_networks: list[str] | None = None,
        timeout: float = 10.0,
        max_bytes: int = 1_000_000,
        max_redirects: int = 5,
        builtin: bool = True,
        native: bool | None = None,
        local: bool | None = None,
        id: str | None = None,
        description: str | None = None,
        defer_loading: bool = False,
    ) -> WebFetch[Any]:
        """Build from a spec entry (the fields, with `builtin` (or `native`) and `local` as booleans)."""
        return cls(
            allowed_domains=allowed_domains,
            blocked_domains=blocked_domains,
            max_uses=max_uses,
            enable_citations=enable_citations,
            max_content_tokens=max_content_tokens,
            allowed_networks=allowed_networks or [],
            timeout=timeout,
            max_bytes=max_bytes,
            max_redirects=max_redirects,
            builtin=builtin,
            native=native,
            id=id,
            description=description,
            defer_loading=defer_loading,
            local=local,
        )
