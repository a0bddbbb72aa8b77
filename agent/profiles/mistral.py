"""What Mistral models support: the Magistral models always reason."""

from __future__ import annotations

from agent.models._request_parameters import ModelProfile

__all__ = ('mistral_model_profile',)


def mistral_model_profile(model_name: str) -> ModelProfile | None:
    """A profile for Magistral (reasoning) models, `None` for the others (the defaults suit them)."""
    if model_name.startswith('magistral'):
        return ModelProfile(supports_thinking=True, thinking_always_enabled=True)
    return None
