"""Providers: where a model's requests go and how they authenticate.

```
Provider                      base URL, API key, HTTP client
├── OpenAIProvider            agent.providers.openai     OPENAI_API_KEY, OPENAI_BASE_URL
├── AnthropicProvider         agent.providers.anthropic  ANTHROPIC_API_KEY
├── GoogleProvider            agent.providers.google     GEMINI_API_KEY or GOOGLE_API_KEY
├── CerebrasProvider          agent.providers.cerebras   CEREBRAS_API_KEY
└── OpenRouterProvider        agent.providers.openrouter OPENROUTER_API_KEY
```

Models take a provider instance or its name (`OpenAIChatModel('gpt-5.2', provider='openai')`); a name builds
the provider from the environment at that moment.
"""

from __future__ import annotations

from agent.exceptions import UserError

from ._base import Provider

__all__ = ('Provider', 'infer_provider')


def infer_provider(name: str) -> Provider:
    """Build the provider called `name` from the environment.

    Raises:
        UserError: for an unknown name, or when the provider's API key is not set.
    """
    if name in ('openai', 'openai-chat', 'openai-responses'):
        from .openai import OpenAIProvider

        return OpenAIProvider()
    if name == 'anthropic':
        from .anthropic import AnthropicProvider

        return AnthropicProvider()
    if name in ('google', 'google-gla'):
        from .google import GoogleProvider

        return GoogleProvider()
    if name == 'cerebras':
        from .cerebras import CerebrasProvider

        return CerebrasProvider()
    if name == 'openrouter':
        from .openrouter import OpenRouterProvider

        return OpenRouterProvider()
    raise UserError(
        f'Unknown provider {name!r}: use "openai", "anthropic", "google", "cerebras" or "openrouter", '
        'or pass a Provider instance.'
    )
