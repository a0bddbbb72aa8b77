"""What models served by Groq support: which of them reason, and whether that can be turned off."""

from __future__ import annotations

from dataclasses import dataclass

from agent.models._request_parameters import ModelProfile

__all__ = ('GroqModelProfile', 'groq_model_profile')


@dataclass
class GroqModelProfile(ModelProfile):
    """The profile type of models served by Groq (Pydantic AI's name for it; it adds no fields here)."""


# Qwen 3 reasons and can be told not to; the older reasoning models on Groq always reason.
_REASONING = ('qwen/qwen3', 'qwen-qwq', 'deepseek-r1', 'llama-4-maverick')


def groq_model_profile(model_name: str) -> ModelProfile:
    """What a model on Groq supports, from its name."""
    reasons = model_name.startswith(_REASONING)
    return ModelProfile(
        supports_thinking=reasons, thinking_always_enabled=reasons and not model_name.startswith('qwen/qwen3')
    )
