"""Resolving instructions, system prompts and per-step model settings against a `RunContext`."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ._parts import InstructionPart, SystemPromptPart
from ._run_context import RunContext
from ._template import TemplateStr
from ._threads import call_maybe_async
from .settings import ModelSettings, merge_model_settings

__all__ = (
    'InstructionSource',
    'SystemPromptRunner',
    'flatten_instructions',
    'instruction_parts',
    'render_instructions',
    'resolve_settings',
)


def _takes_ctx(func: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    return len(params) >= 1


InstructionSource = str | TemplateStr | Callable[..., Any]
"""One instruction: a string, a template rendered against deps, or a function (with or without `RunContext`)."""


def flatten_instructions(value: Any) -> list[InstructionSource]:
    """Flatten `instructions=` values (single items, sequences, `None`) into a list of sources."""
    if value is None:
        return []
    if isinstance(value, str | TemplateStr) or callable(value):
        return [value]
    if isinstance(value, Sequence):
        items: list[InstructionSource] = []
        for item in value:  # pyright: ignore[reportUnknownVariableType]
            items.extend(flatten_instructions(item))
        return items
    raise TypeError(f'Unsupported instructions value: {value!r}')


async def _render_one(source: InstructionSource, ctx: RunContext[Any]) -> str | None:
    if isinstance(source, str):
        return source
    if isinstance(source, TemplateStr):
        template: TemplateStr[Any] = source  # pyright: ignore[reportUnknownVariableType]
        return template.render(ctx.deps)
    result = await (call_maybe_async(source, ctx) if _takes_ctx(source) else call_maybe_async(source))
    return None if result is None else str(result)


async def render_instructions(sources: Sequence[InstructionSource], ctx: RunContext[Any]) -> str | None:
    """Render every source in order and join the non-empty results with blank lines (`None` if none)."""
    rendered = [text for source in sources if (text := await _render_one(source, ctx))]
    return '\n\n'.join(text.strip() for text in rendered) or None


async def instruction_parts(sources: Sequence[InstructionSource], ctx: RunContext[Any]) -> list[InstructionPart]:
    """Render every source in order into an `InstructionPart`, leaving out blank results.

    A plain string is static (`dynamic=False`); what a function or template renders may change between
    requests, so it is dynamic.
    """
    parts: list[InstructionPart] = []
    for source in sources:
        text = await _render_one(source, ctx)
        if text is not None and text.strip():
            parts.append(InstructionPart(text, dynamic=not isinstance(source, str)))
    return parts


@dataclass
class SystemPromptRunner:
    """A system prompt function registered with `@agent.system_prompt`."""

    function: Callable[..., Any]
    """The function producing the prompt (or `None` to add nothing)."""
    dynamic: bool = False
    """Re-evaluate the prompt on every run, even when it is already in the message history."""

    async def run(self, ctx: RunContext[Any]) -> SystemPromptPart | None:
        """Evaluate the prompt."""
        text = await _render_one(self.function, ctx)
        if text is None:
            return None
        ref = getattr(self.function, '__qualname__', None) if self.dynamic else None
        return SystemPromptPart(text, dynamic_ref=ref)


async def resolve_settings(
    layers: Sequence[ModelSettings | Callable[[RunContext[Any]], ModelSettings | None] | None],
    ctx: RunContext[Any],
) -> ModelSettings | None:
    """Merge settings layers in order.

    A callable layer sees the merge of the layers before it in `ctx.model_settings`.
    """
    merged: ModelSettings | None = None
    for layer in layers:
        if layer is None:
            continue
        if callable(layer):
            value = layer(replace(ctx, model_settings=merged))
            if inspect.isawaitable(value):
                value = await value
            merged = merge_model_settings(merged, value)
        else:
            merged = merge_model_settings(merged, layer)
    return merged
