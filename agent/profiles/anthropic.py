"""What Claude models support, and how the unified `thinking` setting maps onto Anthropic's parameters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from agent.models._request_parameters import ModelProfile
from agent.settings import ThinkingEffort, ThinkingLevel

__all__ = (
    'ANTHROPIC_THINKING_BUDGET_MAP',
    'ANTHROPIC_THINKING_EFFORT_MAP',
    'AnthropicEffort',
    'AnthropicModelProfile',
    'anthropic_model_profile',
    'resolve_anthropic_effort',
)

AnthropicEffort: TypeAlias = Literal['low', 'medium', 'high', 'xhigh', 'max']
"""The values of Anthropic's `output_config.effort`."""

ANTHROPIC_THINKING_BUDGET_MAP: dict[ThinkingLevel, int] = {
    True: 10000,
    'minimal': 1024,
    'low': 2048,
    'medium': 10000,
    'high': 16384,
    'xhigh': 32768,
}
"""`budget_tokens` per thinking level, for models that think on a token budget (not adaptively)."""

ANTHROPIC_THINKING_EFFORT_MAP: dict[ThinkingEffort, AnthropicEffort] = {
    'minimal': 'low',
    'low': 'low',
    'medium': 'medium',
    'high': 'high',
    'xhigh': 'max',
}
"""`output_config.effort` per effort level; `'xhigh'` becomes `'max'` where the model has no `'xhigh'`."""

# The newest models: adaptive thinking only, `xhigh` effort, task budgets, and no sampling settings.
_NEWEST = ('claude-fable-5', 'claude-mythos-5', 'claude-opus-4-7', 'claude-opus-4-8')
_ADAPTIVE = (*_NEWEST, 'claude-sonnet-4-6', 'claude-opus-4-6')
_EFFORT = (*_ADAPTIVE, 'claude-opus-4-5')
_JSON_SCHEMA_OUTPUT = (
    *_NEWEST,
    'claude-haiku-4-5',
    'claude-sonnet-4-5',
    'claude-sonnet-4-6',
    'claude-opus-4-1',
    'claude-opus-4-5',
    'claude-opus-4-6',
)
# Claude 3.5 and older cannot think; 3.7 was the first that could.
_NO_THINKING = ('claude-3-5', 'claude-3-haiku', 'claude-3-opus', 'claude-3-sonnet')
_NATIVE_TOOLS = frozenset({'web_search', 'code_execution', 'web_fetch', 'mcp_server'})


@dataclass(kw_only=True)
class AnthropicModelProfile(ModelProfile):
    """A Claude model's profile: the base fields plus Anthropic's own, all prefixed `anthropic_`."""

    anthropic_supports_adaptive_thinking: bool = False
    """Whether the model decides its own thinking depth (`{'type': 'adaptive'}`) instead of taking a token budget."""
    anthropic_supports_effort: bool = False
    """Whether the model takes `output_config.effort`, which an effort level of the `thinking` setting then sets."""
    anthropic_supports_xhigh_effort: bool = False
    """Whether `output_config.effort` accepts `'xhigh'` (otherwise `'xhigh'` is sent as `'max'`)."""
    anthropic_disallows_budget_thinking: bool = False
    """Whether the model refuses budget thinking (`{'type': 'enabled', 'budget_tokens': ...}`)."""
    anthropic_disallows_sampling_settings: bool = False
    """Whether the model refuses `temperature` and `top_p`, which are then left out of requests."""
    anthropic_supports_task_budgets: bool = False
    """Whether the model takes `output_config.task_budget` (the `anthropic_task_budget` setting)."""


def resolve_anthropic_effort(level: ThinkingEffort, *, supports_xhigh: bool) -> AnthropicEffort:
    """The `output_config.effort` for a unified effort level; `'xhigh'` stays `'xhigh'` only where supported."""
    if level == 'xhigh' and supports_xhigh:
        return 'xhigh'
    return ANTHROPIC_THINKING_EFFORT_MAP[level]


def anthropic_model_profile(model_name: str) -> AnthropicModelProfile:
    """What a Claude model supports, from its name."""
    newest = model_name.startswith(_NEWEST)
    return AnthropicModelProfile(
        supports_json_schema_output=model_name.startswith(_JSON_SCHEMA_OUTPUT),
        supported_native_tools=_NATIVE_TOOLS,
        supports_thinking=not model_name.startswith(_NO_THINKING),
        anthropic_supports_adaptive_thinking=model_name.startswith(_ADAPTIVE),
        anthropic_supports_effort=model_name.startswith(_EFFORT),
        anthropic_supports_xhigh_effort=newest,
        anthropic_disallows_budget_thinking=newest,
        anthropic_disallows_sampling_settings=newest,
        anthropic_supports_task_budgets=newest,
    )
