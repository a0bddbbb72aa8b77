"""What Cohere models support: the reasoning models always reason."""

from __future__ import annotations

from agent.models._request_parameters import ModelProfile

__all__ = ('cohere_model_profile',)


def cohere_model_profile(model_name: str) -> ModelProfile | None:
    """A profile for Command reasoning models, `None` for the others (the defaults suit them)."""
    if 'reasoning' in model_name:
        return ModelProfile(supports_thinking=True, thinking_always_enabled=True)
    return None
