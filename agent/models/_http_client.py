"""HTTP clients for models that reach a provider over the network."""

from __future__ import annotations

import httpx2
from typing_extensions import deprecated

__all__ = ('DEFAULT_HTTP_TIMEOUT', 'cached_async_http_client', 'create_async_http_client')

DEFAULT_HTTP_TIMEOUT: int = 600
"""Seconds a provider's HTTP client waits for a response before giving up (connecting gives up after 5)."""


def create_async_http_client(*, timeout: int = DEFAULT_HTTP_TIMEOUT, connect: int = 5) -> httpx2.AsyncClient:
    """A new HTTP client with a long response timeout and a short connect timeout.

    Model responses can take minutes (long outputs, thinking), while a connection should open quickly.
    The caller owns the client and closes it.
    """
    return httpx2.AsyncClient(timeout=httpx2.Timeout(timeout, connect=connect))


@deprecated('`cached_async_http_client` is deprecated, use `create_async_http_client` instead.')
def cached_async_http_client(
    *, provider: str | None = None, timeout: int = DEFAULT_HTTP_TIMEOUT, connect: int = 5
) -> httpx2.AsyncClient:
    """A new client, as `create_async_http_client` makes; kept (with a `DeprecationWarning`) for programs written
    for older releases.

    `provider` is accepted and unused: clients are no longer shared between providers.
    """
    del provider
    return create_async_http_client(timeout=timeout, connect=connect)
