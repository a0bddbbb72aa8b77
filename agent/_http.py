"""HTTP client factories under the module path code written for later Pydantic AI releases imports them from."""

from __future__ import annotations

from .models._http_client import DEFAULT_HTTP_TIMEOUT, create_async_http_client

__all__ = ('DEFAULT_HTTP_TIMEOUT', 'create_async_httpx2_client')

create_async_httpx2_client = create_async_http_client
"""A new `httpx2` client with a long response timeout and a short connect timeout (the one client kind used here)."""
