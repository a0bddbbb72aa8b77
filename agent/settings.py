"""Model settings: the knobs passed to a model request, merged layer by layer."""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import TypedDict

__all__ = ('ModelSettings', 'ThinkingEffort', 'merge_model_settings')

ThinkingEffort = Literal['minimal', 'low', 'medium', 'high', 'xhigh']
"""Unified thinking effort levels; each model maps them to its own parameters."""


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
    thinking: bool | ThinkingEffort
    """Enable thinking/reasoning (`True` or an effort level) or disable it (`False`)."""
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
