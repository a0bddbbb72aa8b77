"""`OpenAIProvider`: the OpenAI API, or any server that speaks its protocol (Ollama, vLLM, OpenRouter, ...).

```python
from agent.providers.openai import OpenAIProvider

ollama = OpenAIProvider(base_url='http://localhost:11434/v1')  # no key needed
```

Without arguments the key comes from `OPENAI_API_KEY` and the base URL from `OPENAI_BASE_URL` (OpenAI's
own API when unset). A key is required for OpenAI's API; other servers get one only if it is given.
"""

from __future__ import annotations

import os

import httpx2

from ._base import Provider, env_api_key

__all__ = ('OPENAI_BASE_URL', 'OpenAIProvider')

OPENAI_BASE_URL = 'https://api.openai.com/v1'
"""OpenAI's own API."""


class OpenAIProvider(Provider):
    """The OpenAI API or an OpenAI-compatible server."""

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        http_client: httpx2.AsyncClient | None = None,
        name: str | None = None,
    ) -> None:
        """Create a provider.

        Args:
            base_url: The server's base URL (ending in `/v1` for most servers); `OPENAI_BASE_URL` or OpenAI's API
                by default.
            api_key: The API key; `OPENAI_API_KEY` by default.
            http_client: The client to send requests with.
            name: The provider name reported in responses; `'openai'` by default.

        Raises:
            UserError: if OpenAI's own API is used and no key is given or set in `OPENAI_API_KEY`.
        """
        resolved_url = base_url or os.environ.get('OPENAI_BASE_URL') or OPENAI_BASE_URL
        if resolved_url.rstrip('/') == OPENAI_BASE_URL:
            api_key = env_api_key(api_key, 'OPENAI_API_KEY', provider='OpenAI')
        else:
            api_key = api_key or os.environ.get('OPENAI_API_KEY') or None
        super().__init__(base_url=resolved_url, api_key=api_key, http_client=http_client)
        self._name = name or 'openai'

    @property
    def name(self) -> str:
        """`'openai'` unless named otherwise."""
        return self._name

    @property
    def is_openai(self) -> bool:
        """Whether requests go to OpenAI's own API (not a compatible server)."""
        return self.base_url == OPENAI_BASE_URL

    def auth_headers(self) -> dict[str, str]:
        """A bearer token, when there is a key."""
        return {'Authorization': f'Bearer {self.api_key}'} if self.api_key else {}
