"""`CerebrasProvider`: Cerebras's OpenAI-compatible inference API.

The key comes from `CEREBRAS_API_KEY` unless given. Requests go to `https://api.cerebras.ai/v1` in the Chat
Completions format; `agent.models.cerebras.CerebrasModel` adds Cerebras's own settings.
"""

from __future__ import annotations

from dataclasses import replace

import httpx2

from agent._json_schema import InlineDefsJsonSchemaTransformer
from agent.models._request_parameters import ModelProfile

from ._base import Provider, env_api_key

__all__ = ('CEREBRAS_BASE_URL', 'CerebrasProvider')

CEREBRAS_BASE_URL = 'https://api.cerebras.ai/v1'
"""Cerebras's API."""

# Models that reason and take `disable_reasoning` (the others never reason).
_REASONING_PREFIXES = ('zai', 'gpt-oss')


class CerebrasProvider(Provider):
    """The Cerebras API."""

    def __init__(self, *, api_key: str | None = None, http_client: httpx2.AsyncClient | None = None) -> None:
        """Create a provider.

        Args:
            api_key: The API key; `CEREBRAS_API_KEY` by default.
            http_client: The client to send requests with.

        Raises:
            UserError: if no key is given or set in `CEREBRAS_API_KEY`.
        """
        key = env_api_key(api_key, 'CEREBRAS_API_KEY', provider='Cerebras')
        super().__init__(base_url=CEREBRAS_BASE_URL, api_key=key, http_client=http_client)

    @property
    def name(self) -> str:
        """Always `'cerebras'`."""
        return 'cerebras'

    def auth_headers(self) -> dict[str, str]:
        """A bearer token."""
        return {'Authorization': f'Bearer {self.api_key}'}

    @staticmethod
    def model_profile(model_name: str) -> ModelProfile:
        """What a model served by Cerebras supports, from its name.

        Only the reasoning models (GLM and gpt-oss) take the `thinking` setting; Llama and Qwen get their tool
        schemas with definitions inlined, which those models follow more reliably.
        """
        name = model_name.lower()
        profile = ModelProfile(supports_thinking=name.startswith(_REASONING_PREFIXES))
        if name.startswith(('llama', 'qwen')):
            return replace(profile, json_schema_transformer=InlineDefsJsonSchemaTransformer)
        if name.startswith('gpt-oss'):
            # OpenAI's open-weight models take structured output the way OpenAI's own models do.
            return replace(profile, supports_json_schema_output=True, supports_json_object_output=True)
        return profile
