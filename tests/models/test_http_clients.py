"""The HTTP clients models reach providers with."""

from __future__ import annotations

import pytest

from agent import models


async def test_a_new_client_waits_long_for_responses_but_not_to_connect():
    async with models.create_async_http_client(timeout=30, connect=2) as client:
        assert (client.timeout.read, client.timeout.connect) == (30, 2)


async def test_the_older_cached_client_function_warns_and_still_gives_a_new_client():
    with pytest.warns(DeprecationWarning, match='`cached_async_http_client` is deprecated'):
        first = models.cached_async_http_client(provider='openai')
    with pytest.warns(DeprecationWarning, match='use `create_async_http_client` instead'):
        second = models.cached_async_http_client()
    async with first, second:
        assert first is not second
        assert first.timeout.read == models.DEFAULT_HTTP_TIMEOUT
