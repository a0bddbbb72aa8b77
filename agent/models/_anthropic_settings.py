"""Anthropic's own settings, and how they and the unified `thinking` parameter become request fields.

`thinking` and `output_config` are worked out from three sources, the first that says something winning:

    anthropic_thinking ───────────────┐
    params.thinking (from `thinking`) ┴─→ thinking:  adaptive models → {'type': 'adaptive'}
                                                     others          → {'type': 'enabled', 'budget_tokens': N}
    anthropic_effort ─────────────────┐
    params.thinking, an effort level ─┴─→ output_config.effort (models with `anthropic_supports_effort`)
    anthropic_task_budget ──────────────→ output_config.task_budget (models with `anthropic_supports_task_budgets`)
"""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import TypedDict

from agent.exceptions import UserError
from agent.profiles.anthropic import (
    ANTHROPIC_THINKING_BUDGET_MAP,
    AnthropicEffort,
    AnthropicModelProfile,
    resolve_anthropic_effort,
)
from agent.settings import ModelSettings

from ._request_parameters import ModelProfile, ModelRequestParameters

__all__ = (
    'AnthropicModelSettings',
    'AnthropicTaskBudget',
    'anthropic_output_config',
    'anthropic_thinking',
    'check_task_budget',
)


class AnthropicTaskBudget(TypedDict):
    """A budget for a whole agentic task (`output_config.task_budget`)."""

    type: Literal['tokens']
    """What the budget counts."""
    total: int
    """How many of them the task may spend."""


class AnthropicModelSettings(ModelSettings, total=False):
    """Settings for `AnthropicModel`: the common ones plus Anthropic's own, all prefixed `anthropic_`."""

    anthropic_thinking: dict[str, Any]
    """The Messages API's `thinking` parameter as is (e.g. `{'type': 'disabled'}`); wins over `thinking`."""
    anthropic_effort: AnthropicEffort
    """`output_config.effort`; wins over an effort level given as `thinking`."""
    anthropic_task_budget: AnthropicTaskBudget
    """`output_config.task_budget`, for the models that take one."""


def anthropic_thinking(
    profile: ModelProfile, settings: ModelSettings, params: ModelRequestParameters
) -> dict[str, Any] | None:
    """The `thinking` parameter, or `None` to leave it out (thinking off, the model's default)."""
    explicit = settings.get('anthropic_thinking')
    if explicit:
        return explicit
    thinking = params.thinking
    if thinking is None or thinking is False:
        return None
    anthropic = AnthropicModelProfile.from_profile(profile)
    if anthropic.anthropic_supports_adaptive_thinking:
        # The depth is the model's to choose; an effort level goes to `output_config.effort` instead.
        return {'type': 'adaptive'}
    return {'type': 'enabled', 'budget_tokens': ANTHROPIC_THINKING_BUDGET_MAP[thinking]}


def check_task_budget(profile: ModelProfile, model_name: str, settings: ModelSettings) -> None:
    """Refuse `anthropic_task_budget` for a model that takes no task budget.

    Raises:
        UserError: if `anthropic_task_budget` is set for a model without `anthropic_supports_task_budgets`.
    """
    supported = AnthropicModelProfile.from_profile(profile).anthropic_supports_task_budgets
    if settings.get('anthropic_task_budget') is not None and not supported:
        raise UserError(
            f'Model {model_name!r} does not take `anthropic_task_budget`; Anthropic offers task budgets on '
            'Claude Opus 4.7 and later.'
        )


def anthropic_output_config(
    profile: ModelProfile, settings: ModelSettings, params: ModelRequestParameters
) -> dict[str, Any] | None:
    """The `output_config` parameter: native output's format, the effort and the task budget; `None` if empty."""
    anthropic = AnthropicModelProfile.from_profile(profile)
    config: dict[str, Any] = {}
    if params.output_mode == 'native' and params.output_object is not None:
        config['format'] = {'type': 'json_schema', 'schema': params.output_object.json_schema}
    effort = settings.get('anthropic_effort')
    # Only an effort level sets the effort: `thinking=True` asks for thinking at the model's default depth.
    if effort is None and anthropic.anthropic_supports_effort and isinstance(params.thinking, str):
        effort = resolve_anthropic_effort(params.thinking, supports_xhigh=anthropic.anthropic_supports_xhigh_effort)
    if effort is not None:
        config['effort'] = effort
    task_budget = settings.get('anthropic_task_budget')
    if task_budget is not None:
        config['task_budget'] = task_budget
    return config or None
