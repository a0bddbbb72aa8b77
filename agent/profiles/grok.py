"""What xAI's Grok models support: which `reasoning_effort` values each accepts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from agent.models._request_parameters import ModelProfile

__all__ = ('GrokModelProfile', 'GrokReasoningEffort', 'grok_model_profile')

GrokReasoningEffort: TypeAlias = Literal['none', 'low', 'medium', 'high']
"""The values of xAI's `reasoning_effort`."""

# Grok 4.3, its floating alias, and the retired names xAI now serves with Grok 4.3.
_GROK_43 = frozenset(
    {
        'grok-4.3',
        'grok-4.3-latest',
        'grok-latest',
        'grok-4-0709',
        'grok-4-1-fast-reasoning',
        'grok-4-1-fast-non-reasoning',
        'grok-4-fast-reasoning',
        'grok-4-fast-non-reasoning',
        'grok-3',
    }
)
_GROK_43_EFFORTS: frozenset[GrokReasoningEffort] = frozenset({'none', 'low', 'medium', 'high'})
_GROK_3_MINI_EFFORTS: frozenset[GrokReasoningEffort] = frozenset({'low', 'high'})


@dataclass(kw_only=True)
class GrokModelProfile(ModelProfile):
    """A Grok model's profile: the base fields plus xAI's own, all prefixed `grok_`."""

    grok_supports_builtin_tools: bool = False
    """Whether the model runs xAI's server-side tools (web search, code execution, ...)."""
    grok_reasoning_efforts: frozenset[GrokReasoningEffort] = field(default_factory=frozenset[GrokReasoningEffort])
    """The `reasoning_effort` values the model accepts (none: it does not take a reasoning effort)."""


def grok_model_profile(model_name: str) -> GrokModelProfile:
    """What a Grok model supports, from its name.

    A model whose efforts lack `'none'` (grok-3-mini) reasons whatever it is told, so it always thinks; the
    other Grok 4 models reason but take no `reasoning_effort` at all, so the `thinking` setting does not reach them.
    """
    if model_name in _GROK_43:
        efforts = _GROK_43_EFFORTS
    elif model_name.startswith('grok-3-mini'):
        efforts = _GROK_3_MINI_EFFORTS
    else:
        efforts = frozenset[GrokReasoningEffort]()
    builtin_tools = model_name.startswith('grok-4') or 'code' in model_name or 'build' in model_name
    return GrokModelProfile(
        supports_json_schema_output=True,
        supports_json_object_output=True,
        supports_thinking=bool(efforts),
        thinking_always_enabled=bool(efforts) and 'none' not in efforts,
        grok_supports_builtin_tools=builtin_tools or model_name in _GROK_43,
        grok_reasoning_efforts=efforts,
    )
