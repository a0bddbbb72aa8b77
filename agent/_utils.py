"""Small helpers at the names Pydantic AI's code uses: JSON-value type guards; whether a function takes a context."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeGuard

from ._function_schema import _takes_ctx  # pyright: ignore[reportPrivateUsage]

__all__ = ('is_str_dict', 'takes_run_context')


def is_str_dict(value: object) -> TypeGuard[dict[str, Any]]:
    """Whether `value` is a dict whose keys are all strings (a JSON object)."""
    return isinstance(value, dict) and all(isinstance(key, str) for key in value)  # pyright: ignore[reportUnknownVariableType]


def takes_run_context(function: Callable[..., Any]) -> bool:
    """Whether `function`'s first parameter is annotated as a `RunContext` (an unannotated one is not).

    Functions, bound methods, partials and callable instances are read alike.
    """
    return _takes_ctx(function)
