"""`AnthropicProvider`: the Anthropic Messages API.

The key comes from `ANTHROPIC_API_KEY` unless given; `ANTHROPIC_BASE_URL` overrides the base URL (for a
gateway or proxy).
"""

from __future__ import annotations

import os

import httpx2

from ._base import Provider, env_api_key

__all__ = ('ANTHROPIC_API_VERSION', 'ANTHROPIC_BASE_URL', 'AnthropicProvider')

ANTHROPIC_BASE_URL = 'https://api.anthropic.com'
"""Anthropic's API."""
ANTHROPIC_API_VERSION = '2023-06-01'
"""The `anthropic-version` the request and response formats follow."""


class AnthropicProvider(Provider):
    """The Anthropic API."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        http_client: httpx2.AsyncClient | None = None,
    ) -> None:
        """Create a provider.

        Args:
            api_key: The API key; `ANTHROPIC_API_KEY` by default.
            base_url: The base URL; `ANTHROPIC_BASE_URL` or Anthropic's API by default.
            http_client: The client to send requests with.

        Raises:
            UserError: if no key is given or set in `ANTHROPIC_API_KEY`.
        """
        key = env_api_key(api_key, 'ANTHROPIC_API_KEY', provider='Anthropic')
        url = base_url or os.environ.get('ANTHROPIC_BASE_URL') or ANTHROPIC_BASE_URL
        super().__init__(base_url=url, api_key=key, http_client=http_client)

    @property
    def name(self) -> str:
        """Always `'anthropic'`."""
        return 'anthropic'

    def auth_headers(self) -> dict[str, str]:
        """The key and the API version."""
        return {'x-api-key': self.api_key or '', 'anthropic-version': ANTHROPIC_API_VERSION}
