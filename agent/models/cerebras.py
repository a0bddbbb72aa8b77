"""`CerebrasModel`: models served by Cerebras, through its OpenAI-compatible Chat Completions API.

Model strings: `'cerebras:<model>'`, with the key from `CEREBRAS_API_KEY`. Cerebras turns reasoning on and off with
a `disable_reasoning` body field rather than `reasoning_effort`, so the `thinking` setting (or
`cerebras_disable_reasoning`) becomes that field.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias, cast

from agent.providers import Provider
from agent.settings import ModelSettings

from ._infer import register_model_provider
from ._openai_chat import OpenAIChatModel
from ._openai_common import OpenAIChatModelSettings
from ._request_parameters import ModelProfile, ModelRequestParameters

__all__ = ('CerebrasModel', 'CerebrasModelName', 'CerebrasModelSettings')

CerebrasModelName: TypeAlias = (
    str
    | Literal[
        'gpt-oss-120b',
        'llama-3.3-70b',
        'llama3.1-8b',
        'qwen-3-235b-a22b-instruct-2507',
        'qwen-3-32b',
        'zai-glm-4.6',
    ]
)
"""A Cerebras model name: any string, with some known ones listed for completion."""

_UNSUPPORTED_SETTINGS = ('frequency_penalty', 'logit_bias', 'presence_penalty', 'parallel_tool_calls')
"""Settings Cerebras's API rejects; they are left out of its requests."""


class CerebrasModelSettings(OpenAIChatModelSettings, total=False):
    """Settings for `CerebrasModel`: the Chat Completions ones plus Cerebras's own, all prefixed `cerebras_`."""

    cerebras_disable_reasoning: bool
    """Sent as `disable_reasoning` (reasoning models only: GLM and gpt-oss); wins over the `thinking` setting."""


class CerebrasModel(OpenAIChatModel):
    """A model served by Cerebras (`POST https://api.cerebras.ai/v1/chat/completions`).

    ```python
    from agent.models.cerebras import CerebrasModel
    from agent.providers.cerebras import CerebrasProvider

    model = CerebrasModel('zai-glm-4.6', provider=CerebrasProvider(api_key='csk-...'))
    ```
    """

    def __init__(
        self,
        model_name: CerebrasModelName,
        *,
        provider: Provider | Literal['cerebras'] = 'cerebras',
        profile: ModelProfile | None = None,
        settings: ModelSettings | None = None,
    ) -> None:
        """Create a model.

        Args:
            model_name: The model, e.g. `'zai-glm-4.6'`.
            provider: A `CerebrasProvider`, or `'cerebras'` to build one from `CEREBRAS_API_KEY`.
            profile: What the model supports; derived from the name when omitted.
            settings: Default settings for every request.

        Raises:
            UserError: if the provider is built from the environment and `CEREBRAS_API_KEY` is not set.
        """
        super().__init__(model_name, provider=provider, profile=profile, settings=settings)

    def _translate_thinking(self, settings: ModelSettings, params: ModelRequestParameters) -> str | None:
        """Only an explicit `openai_reasoning_effort` is sent as `reasoning_effort`; the `thinking` setting travels
        as `disable_reasoning` instead (see `prepare_request`)."""
        return cast(OpenAIChatModelSettings, settings).get('openai_reasoning_effort') or None

    def prepare_request(
        self, model_settings: ModelSettings | None, model_request_parameters: ModelRequestParameters
    ) -> tuple[ModelSettings | None, ModelRequestParameters]:
        """The common preparation, then Cerebras's settings turned into body fields and the settings it rejects
        left out."""
        settings, params = super().prepare_request(model_settings, model_request_parameters)
        translated = _cerebras_settings_to_openai_settings(cast(CerebrasModelSettings, settings or {}), params)
        for name in _UNSUPPORTED_SETTINGS:
            translated.pop(name, None)
        return translated, params


def _cerebras_settings_to_openai_settings(
    model_settings: CerebrasModelSettings, model_request_parameters: ModelRequestParameters
) -> OpenAIChatModelSettings:
    """Chat Completions settings for `model_settings`, with reasoning turned into `extra_body['disable_reasoning']`.

    `cerebras_disable_reasoning` wins; otherwise a resolved `thinking` of `False` disables reasoning and any other
    level enables it (Cerebras has no effort levels). Neither the settings nor their `extra_body` are mutated.
    """
    settings = cast(dict[str, Any], dict(model_settings))
    extra_body = dict(cast(dict[str, Any], settings.get('extra_body') or {}))
    disable = settings.pop('cerebras_disable_reasoning', None)
    if disable is None and model_request_parameters.thinking is not None:
        disable = model_request_parameters.thinking is False
    if disable is not None:
        extra_body['disable_reasoning'] = disable
    if extra_body:
        settings['extra_body'] = extra_body
    return cast(OpenAIChatModelSettings, settings)


register_model_provider('cerebras', CerebrasModel)
