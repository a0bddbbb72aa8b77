"""What OpenAI models support: which reason, which always do, and the `reasoning_effort` per thinking level."""

from __future__ import annotations

from dataclasses import dataclass

from agent.models._request_parameters import ModelProfile
from agent.settings import ThinkingLevel

__all__ = ('OPENAI_REASONING_EFFORT_MAP', 'OpenAIModelProfile', 'openai_model_profile')


@dataclass
class OpenAIModelProfile(ModelProfile):
    """The profile type of OpenAI models (Pydantic AI's name for it; it adds no fields here)."""


OPENAI_REASONING_EFFORT_MAP: dict[ThinkingLevel, str] = {
    True: 'medium',
    False: 'none',
    'minimal': 'minimal',
    'low': 'low',
    'medium': 'medium',
    'high': 'high',
    'xhigh': 'xhigh',
}
"""The `reasoning_effort` sent for each value of the `thinking` setting."""

# GPT-5.1 and later reason, but can be told not to (`reasoning_effort='none'`, their default).
_GPT_5_1_PLUS = ('gpt-5.1', 'gpt-5.2', 'gpt-5.3', 'gpt-5.4', 'gpt-5.5')


def openai_model_profile(model_name: str) -> ModelProfile:
    """What an OpenAI model supports, from its name.

    The o-series and GPT-5 (but its chat variants) always reason; GPT-5.1 and later reason unless told not to;
    gpt-5.3-chat does not reason.
    """
    gpt_5_1_plus = model_name.startswith(_GPT_5_1_PLUS)
    gpt_5 = model_name.startswith('gpt-5') and not gpt_5_1_plus
    always = model_name.startswith('o') or (gpt_5 and '-chat' not in model_name)
    reasons = (always or gpt_5_1_plus) and not model_name.startswith('gpt-5.3-chat')
    return ModelProfile(
        supports_json_schema_output=True,
        supports_json_object_output=True,
        supports_thinking=reasons,
        thinking_always_enabled=always,
    )
