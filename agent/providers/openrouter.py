"""`OpenRouterProvider`: OpenRouter, one OpenAI-compatible API in front of many model vendors.

The key comes from `OPENROUTER_API_KEY` unless given. Model names carry their vendor (`'anthropic/claude-sonnet-4.5'`,
`'openai/gpt-5'`), and the profile follows the vendor's own for that model. An optional app URL and title
(`OPENROUTER_APP_URL`, `OPENROUTER_APP_TITLE`) are sent as OpenRouter's attribution headers.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace

import httpx2

from agent.models._request_parameters import ModelProfile
from agent.profiles.anthropic import anthropic_model_profile
from agent.profiles.cohere import cohere_model_profile
from agent.profiles.deepseek import deepseek_model_profile
from agent.profiles.google import google_model_profile
from agent.profiles.grok import grok_model_profile
from agent.profiles.mistral import mistral_model_profile
from agent.profiles.openai import openai_model_profile

from ._base import Provider, env_api_key

__all__ = ('OPENROUTER_BASE_URL', 'OpenRouterProvider')

OPENROUTER_BASE_URL = 'https://openrouter.ai/api/v1'
"""OpenRouter's API."""

_VENDOR_PROFILES: dict[str, Callable[[str], ModelProfile | None]] = {
    'openai': openai_model_profile,
    'anthropic': anthropic_model_profile,
    'google': google_model_profile,
    'mistralai': mistral_model_profile,
    'x-ai': grok_model_profile,
    'cohere': cohere_model_profile,
    'deepseek': deepseek_model_profile,
}
"""The profile function of each vendor prefix whose models' profiles we know."""


class OpenRouterProvider(Provider):
    """The OpenRouter API."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        app_url: str | None = None,
        app_title: str | None = None,
        http_client: httpx2.AsyncClient | None = None,
    ) -> None:
        """Create a provider.

        Args:
            api_key: The API key; `OPENROUTER_API_KEY` by default.
            app_url: Your app's URL, sent as `HTTP-Referer` for attribution; `OPENROUTER_APP_URL` by default.
            app_title: Your app's name, sent as `X-Title`; `OPENROUTER_APP_TITLE` by default.
            http_client: The client to send requests with.

        Raises:
            UserError: if no key is given or set in `OPENROUTER_API_KEY`.
        """
        key = env_api_key(api_key, 'OPENROUTER_API_KEY', provider='OpenRouter')
        super().__init__(base_url=OPENROUTER_BASE_URL, api_key=key, http_client=http_client)
        self.app_url = app_url or os.environ.get('OPENROUTER_APP_URL') or None
        """The URL sent as `HTTP-Referer`, if any."""
        self.app_title = app_title or os.environ.get('OPENROUTER_APP_TITLE') or None
        """The title sent as `X-Title`, if any."""

    @property
    def name(self) -> str:
        """Always `'openrouter'`."""
        return 'openrouter'

    def auth_headers(self) -> dict[str, str]:
        """A bearer token, and the attribution headers that are set."""
        headers = {'Authorization': f'Bearer {self.api_key}'}
        if self.app_url:
            headers['HTTP-Referer'] = self.app_url
        if self.app_title:
            headers['X-Title'] = self.app_title
        return headers

    @staticmethod
    def model_profile(model_name: str) -> ModelProfile:
        """What a model behind OpenRouter supports: the vendor's profile of the model over OpenRouter's defaults.

        OpenRouter takes a `reasoning` object for every model, so every model can be asked to think (or not);
        the vendor's profile decides whether the model always thinks, in which case `thinking=False` is ignored
        as it is on the direct route.
        """
        # `~vendor/model` names the vendor's latest model; a `:tag` suffix (`:free`, `:online`) picks a variant.
        vendor, _, name = model_name.removeprefix('~').partition('/')
        profile = ModelProfile(supports_thinking=True)
        vendor_profile = _VENDOR_PROFILES.get(vendor)
        if vendor_profile is not None and name:
            name = name.partition(':')[0]
            if vendor == 'anthropic':
                # OpenRouter writes Claude versions with dots (`claude-sonnet-4.5`), Anthropic with dashes.
                name = name.replace('.', '-')
            profile = profile.update(vendor_profile(name))
        # The vendor's own server-side tools are not reachable through OpenRouter; its web search plugin is.
        return replace(profile, supported_native_tools=frozenset({'web_search'}))
