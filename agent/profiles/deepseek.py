"""What DeepSeek models support: R1 and `deepseek-reasoner` always reason, V4 models reason when asked."""

from __future__ import annotations

from agent.models._request_parameters import ModelProfile

__all__ = ('deepseek_model_profile',)


def deepseek_model_profile(model_name: str) -> ModelProfile | None:
    """A profile with DeepSeek's thinking support, from the model name."""
    always = model_name.startswith('deepseek-r1') or model_name == 'deepseek-reasoner'
    return ModelProfile(
        supports_thinking=always or model_name.startswith('deepseek-v4-'),
        thinking_always_enabled=always,
    )
