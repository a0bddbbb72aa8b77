"""Type guards for JSON-like values that come from outside (a client's request, stored metadata)."""

from __future__ import annotations

from typing import Any, TypeGuard

__all__ = ('is_str_dict',)


def is_str_dict(value: object) -> TypeGuard[dict[str, Any]]:
    """Whether `value` is a dict whose keys are all strings (a JSON object)."""
    return isinstance(value, dict) and all(isinstance(key, str) for key in value)  # pyright: ignore[reportUnknownVariableType]
