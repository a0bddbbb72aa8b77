"""`GoogleProvider`: the Gemini API (Google AI Studio keys, the `generativelanguage` endpoint).

The key comes from `GEMINI_API_KEY` (or `GOOGLE_API_KEY`) unless given.
"""

from __future__ import annotations

import httpx2

from ._base import Provider, env_api_key

__all__ = ('GEMINI_BASE_URL', 'GoogleProvider')

GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta'
"""The Gemini API."""


class GoogleProvider(Provider):
    """The Gemini API."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        http_client: httpx2.AsyncClient | None = None,
    ) -> None:
        """Create a provider.

        Args:
            api_key: The API key; `GEMINI_API_KEY` or `GOOGLE_API_KEY` by default.
            base_url: The base URL; the Gemini API's `v1beta` by default.
            http_client: The client to send requests with.

        Raises:
            UserError: if no key is given or set in `GEMINI_API_KEY` / `GOOGLE_API_KEY`.
        """
        key = env_api_key(api_key, 'GEMINI_API_KEY', 'GOOGLE_API_KEY', provider='Google Gemini')
        super().__init__(base_url=base_url or GEMINI_BASE_URL, api_key=key, http_client=http_client)

    @property
    def name(self) -> str:
        """Always `'google-gla'` (the Gemini API, as opposed to Vertex AI)."""
        return 'google-gla'

    def auth_headers(self) -> dict[str, str]:
        """The key, as a header rather than a query parameter so it stays out of logged URLs."""
        return {'x-goog-api-key': self.api_key or ''}
