"""What Gemini models support, and which of Google's two thinking controls each takes."""

from __future__ import annotations

from dataclasses import dataclass

from agent.models._request_parameters import ModelProfile

__all__ = ('GoogleModelProfile', 'google_model_profile')

_NATIVE_TOOLS = frozenset({'web_search', 'code_execution', 'web_fetch'})


@dataclass(kw_only=True)
class GoogleModelProfile(ModelProfile):
    """A Gemini model's profile: the base fields plus Google's own, all prefixed `google_`."""

    google_supports_thinking_level: bool = False
    """Whether the model takes a thinking level (Gemini 3 and later) rather than a token budget (Gemini 2.5)."""


def google_model_profile(model_name: str) -> GoogleModelProfile:
    """What a Gemini model supports, from its name.

    Gemini 2.5 and later think; their Pro models always do (2.5 Pro refuses a zero budget, 3 Pro the minimal level).
    """
    newer = 'gemini-3' in model_name
    thinks = newer or 'gemini-2.5' in model_name
    pro = 'pro' in model_name and 'flash' not in model_name
    return GoogleModelProfile(
        supports_json_schema_output=True,
        supports_json_object_output=True,
        supports_image_output='image' in model_name,
        supports_tool_return_schema='image' not in model_name,
        supported_native_tools=_NATIVE_TOOLS,
        supports_thinking=thinks,
        thinking_always_enabled=thinks and pro,
        google_supports_thinking_level=newer,
    )
