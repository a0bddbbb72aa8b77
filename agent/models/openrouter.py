"""`OpenRouterModel`: any model OpenRouter routes to, through its OpenAI-compatible Chat Completions API.

Model strings: `'openrouter:<vendor>/<model>'` (e.g. `'openrouter:anthropic/claude-sonnet-4.5'`), with the key from
`OPENROUTER_API_KEY`. OpenRouter's own request fields (fallback models, provider routing, presets, transforms,
reasoning, usage accounting) come from the `openrouter_*` settings. The `thinking` setting becomes OpenRouter's
`reasoning` object, which OpenRouter translates for whichever vendor serves the request; the model's reasoning
comes back as thinking parts and is sent back in the same field.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias, cast

from typing_extensions import TypedDict

from agent.providers import Provider
from agent.settings import ModelSettings, ThinkingLevel

from ._infer import register_model_provider
from ._native_tools import native_kind
from ._openai_chat import OpenAIChatModel
from ._openai_common import OpenAIChatModelSettings
from ._request_parameters import ModelProfile, ModelRequestParameters

__all__ = (
    'OpenRouterModel',
    'OpenRouterModelSettings',
    'OpenRouterProviderConfig',
    'OpenRouterReasoning',
    'OpenRouterTransforms',
    'OpenRouterUsageConfig',
)

OpenRouterTransforms: TypeAlias = Literal['middle-out']
"""A prompt transform OpenRouter applies before sending (`'middle-out'` trims the middle of a long conversation)."""

_EFFORTS: dict[ThinkingLevel, str] = {
    True: 'medium',
    False: 'none',
    'minimal': 'low',
    'low': 'low',
    'medium': 'medium',
    'high': 'high',
    'xhigh': 'high',
}
"""OpenRouter's `reasoning.effort` for each thinking level (it has no `minimal` or `xhigh`; `none` turns it off)."""


class OpenRouterProviderConfig(TypedDict, total=False):
    """How OpenRouter picks the vendor's server for a request (its `provider` field)."""

    order: list[str]
    """The providers to try, in order."""
    allow_fallbacks: bool
    """Whether other providers may serve the request when those in `order` cannot."""
    require_parameters: bool
    """Only providers that honour every parameter of the request."""
    data_collection: Literal['allow', 'deny']
    """Whether providers that may store or train on the data are allowed."""
    zdr: bool
    """Only providers with zero data retention."""
    only: list[str]
    """Only these providers."""
    ignore: list[str]
    """Never these providers."""
    quantizations: list[str]
    """Only servers running the model at these quantizations (`'fp8'`, `'bf16'`, ...)."""
    sort: Literal['price', 'throughput', 'latency']
    """How to rank the candidate providers."""
    max_price: dict[str, float]
    """The highest price accepted, in USD per million tokens, by kind (`prompt`, `completion`, ...)."""


class OpenRouterReasoning(TypedDict, total=False):
    """OpenRouter's `reasoning` object: an effort level or a token budget (not both)."""

    effort: Literal['xhigh', 'high', 'medium', 'low', 'minimal', 'none']
    """How hard the model reasons; `'none'` turns reasoning off where the model allows it."""
    max_tokens: int
    """A token budget for reasoning."""
    exclude: bool
    """Reason, but leave the reasoning out of the response."""
    enabled: bool
    """Turn reasoning on with the model's defaults."""


class OpenRouterUsageConfig(TypedDict, total=False):
    """OpenRouter's `usage` object."""

    include: bool
    """Whether the response reports detailed usage (cost, cached tokens)."""


class OpenRouterModelSettings(OpenAIChatModelSettings, total=False):
    """Settings for `OpenRouterModel`: the Chat Completions ones plus OpenRouter's, all prefixed `openrouter_`."""

    openrouter_models: list[str]
    """Models to fall back to, in order, when the main model fails (`models`)."""
    openrouter_provider: OpenRouterProviderConfig
    """How the request is routed between the vendor's providers (`provider`)."""
    openrouter_preset: str
    """A preset defined in OpenRouter's web app (`preset`)."""
    openrouter_transforms: list[OpenRouterTransforms]
    """Transforms applied to the prompt (`transforms`)."""
    openrouter_reasoning: OpenRouterReasoning
    """The `reasoning` object sent as is; wins over the `thinking` setting."""
    openrouter_usage: OpenRouterUsageConfig
    """The `usage` object."""


_BODY_FIELDS = {
    'openrouter_models': 'models',
    'openrouter_provider': 'provider',
    'openrouter_preset': 'preset',
    'openrouter_transforms': 'transforms',
    'openrouter_reasoning': 'reasoning',
    'openrouter_usage': 'usage',
}
"""The request body field each `openrouter_` setting becomes."""


class OpenRouterModel(OpenAIChatModel):
    """A model behind OpenRouter (`POST https://openrouter.ai/api/v1/chat/completions`).

    ```python
    from agent.models.openrouter import OpenRouterModel
    from agent.providers.openrouter import OpenRouterProvider

    model = OpenRouterModel('anthropic/claude-sonnet-4.5', provider=OpenRouterProvider(api_key='sk-or-...'))
    ```
    """

    def __init__(
        self,
        model_name: str,
        *,
        provider: Provider | Literal['openrouter'] = 'openrouter',
        profile: ModelProfile | None = None,
        settings: ModelSettings | None = None,
    ) -> None:
        """Create a model.

        Args:
            model_name: The model as OpenRouter names it, `'<vendor>/<model>'`.
            provider: An `OpenRouterProvider`, or `'openrouter'` to build one from `OPENROUTER_API_KEY`.
            profile: What the model supports; the vendor's profile for the model when omitted.
            settings: Default settings for every request.

        Raises:
            UserError: if the provider is built from the environment and `OPENROUTER_API_KEY` is not set.
        """
        super().__init__(model_name, provider=provider, profile=profile, settings=settings)

    def _translate_thinking(self, settings: ModelSettings, params: ModelRequestParameters) -> str | None:
        """Only an explicit `openai_reasoning_effort` is sent as `reasoning_effort`; the `thinking` setting travels
        in the `reasoning` object instead (see `prepare_request`)."""
        return cast(OpenAIChatModelSettings, settings).get('openai_reasoning_effort') or None

    def prepare_request(
        self, model_settings: ModelSettings | None, model_request_parameters: ModelRequestParameters
    ) -> tuple[ModelSettings | None, ModelRequestParameters]:
        """The common preparation, then OpenRouter's settings turned into body fields."""
        settings, params = super().prepare_request(model_settings, model_request_parameters)
        return _openrouter_settings_to_openai_settings(cast(OpenRouterModelSettings, settings or {}), params), params


def _openrouter_settings_to_openai_settings(
    model_settings: OpenRouterModelSettings, model_request_parameters: ModelRequestParameters
) -> OpenAIChatModelSettings:
    """Chat Completions settings for `model_settings`, with the `openrouter_` settings moved into `extra_body`.

    Without `openrouter_reasoning`, a resolved `thinking` level becomes `reasoning: {effort, enabled: true}`
    (some routes reason only when `enabled` is set) and `thinking=False` becomes `reasoning: {effort: 'none'}`.
    A web search native tool turns on OpenRouter's `web` plugin. Neither the settings nor their `extra_body`
    are mutated.
    """
    settings = cast(dict[str, Any], dict(model_settings))
    extra_body = dict(cast(dict[str, Any], settings.get('extra_body') or {}))
    thinking = model_request_parameters.thinking
    if 'openrouter_reasoning' not in settings and thinking is not None:
        reasoning: dict[str, Any] = {'effort': _EFFORTS[thinking]}
        if thinking is not False:
            reasoning['enabled'] = True
        settings['openrouter_reasoning'] = reasoning
    for setting, field in _BODY_FIELDS.items():
        if value := settings.pop(setting, None):
            extra_body[field] = value
    if any(native_kind(tool) == 'web_search' for tool in model_request_parameters.native_tools):
        extra_body['plugins'] = [*extra_body.get('plugins', []), {'id': 'web'}]
    if extra_body:
        settings['extra_body'] = extra_body
    return cast(OpenAIChatModelSettings, settings)


register_model_provider('openrouter', OpenRouterModel)
