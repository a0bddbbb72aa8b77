"""Model settings: the knobs passed to a model request, merged layer by layer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from typing_extensions import TypedDict

__all__ = (
    'ModelSettings',
    'ThinkingEffort',
    'ThinkingLevel',
    'ToolChoice',
    'ToolChoiceScalar',
    'ToolOrOutput',
    'merge_model_settings',
)

ThinkingEffort = Literal['minimal', 'low', 'medium', 'high', 'xhigh']
"""Unified thinking effort levels; each model maps them to its own parameters."""

ThinkingLevel: TypeAlias = bool | ThinkingEffort
"""A unified thinking setting: `True` (the model's default effort), `False` (off, where the model can turn it off)
or an effort level."""

ToolChoiceScalar: TypeAlias = Literal['none', 'required', 'auto']
"""`'auto'`: the model decides; `'none'`: no function tools; `'required'`: the model must call a function tool."""


@dataclass
class ToolOrOutput:
    """A `tool_choice` that limits the function tools to `function_tools` and still lets the run end.

    Output tools, text and image output stay available, unlike with a list of tool names.
    """

    function_tools: list[str]
    """The names of the function tools the model may call."""


ToolChoice: TypeAlias = ToolChoiceScalar | list[str] | ToolOrOutput | None
"""What `ModelSettings.tool_choice` accepts; a list of names means "call one of these tools"."""


class ModelSettings(TypedDict, total=False):
    """Settings for a model request. Every key is optional; models ignore keys they do not support.

    Settings are merged per step in this order, later layers overriding earlier ones key by key:
    model defaults, agent-level, capabilities (in order), run-level.
    """

    max_tokens: int
    """Maximum tokens to generate."""
    temperature: float
    """Sampling temperature."""
    top_p: float
    """Nucleus sampling probability mass."""
    timeout: float
    """Request timeout in seconds."""
    parallel_tool_calls: bool
    """Whether the model may call several tools in one response."""
    tool_choice: ToolChoice
    """Which function tools the model may or must call (output tools are governed by the output type).

    `None`/`'auto'`: the model decides. `'none'`: no function tools (output tools stay). `'required'`: the model
    must call a function tool. A list of names: it must call one of those. `ToolOrOutput([...])`: only those
    function tools, and the run may still end with its output. `'required'` and lists leave no way to end the
    run, so an agent refuses them in its own or a run's settings: set them per step from a capability's
    `get_model_settings`, or use them with `agent.direct.model_request`.
    """
    seed: int
    """Random seed for providers that support deterministic sampling."""
    presence_penalty: float
    """Penalty for tokens already present."""
    frequency_penalty: float
    """Penalty proportional to token frequency."""
    logit_bias: dict[str, int]
    """Per-token logit adjustments."""
    stop_sequences: list[str]
    """Sequences that stop generation."""
    thinking: ThinkingLevel
    """Enable thinking/reasoning (`True` or an effort level) or disable it (`False`).

    `Model.prepare_request` moves it into `ModelRequestParameters.thinking` when the model's profile supports
    thinking (a model that cannot think ignores it; one that always thinks ignores `False`), and takes it out of
    the settings the provider sees. Provider settings such as `anthropic_thinking` take precedence over it.
    """
    extra_headers: dict[str, str]
    """Extra HTTP headers sent with the request."""
    extra_body: object
    """Extra JSON merged into the request body."""


def merge_model_settings(*layers: ModelSettings | dict[str, Any] | None) -> ModelSettings | None:
    """Merge settings layers; later layers override earlier ones key by key. `None` layers are skipped.

    Returns `None` when every layer is `None`.
    """
    merged: dict[str, Any] | None = None
    for layer in layers:
        if layer is None:
            continue
        merged = {**(merged or {}), **layer}
    return ModelSettings(**merged) if merged is not None else None
