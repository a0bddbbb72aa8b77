"""Compact JSON for the runtime's own payloads: fields at their declared defaults are left out.

Every activity input and output, and a run's result, is mostly messages, and most of a message's fields are at
their defaults (`null` ids and provider details, zero token counts). Leaving them out makes each payload a few
hundred bytes smaller, which adds up over a run's history. Reading is unchanged: validation fills the defaults
back in, so compact and full JSON decode to the same objects.

Kept whatever their value: the fields pydantic tells union members apart by (`kind`, `part_kind`, ...), the
top-level fields of a run's input and output (the documented contract), and anything this module does not own
(user data goes to pydantic as it is).
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

__all__ = ('compact',)

DISCRIMINATORS = frozenset({'kind', 'part_kind', 'event_kind', 'part_delta_kind'})
"""Fields that select a member of a union: never left out."""

_OWN_MODULES = ('agent.', 'activities.', 'workflows.')
_SAFE_FACTORIES: tuple[Any, ...] = (list, dict, tuple, set, frozenset)


def _owned(value: Any) -> bool:
    cls = type(value)
    return cls.__module__.startswith(_OWN_MODULES) and dataclasses.is_dataclass(cls)


def _at_default(field: dataclasses.Field[Any], value: Any) -> bool:
    if field.name in DISCRIMINATORS:
        return False
    if field.default is not dataclasses.MISSING:
        return type(value) is type(field.default) and value == field.default
    factory: Any = field.default_factory
    if factory is dataclasses.MISSING:
        return False
    # Only factories without side effects are called: containers and the runtime's own dataclasses (ids and
    # timestamps come from factories that draw on the run's clock and random source, and are never defaults).
    origin = typing.get_origin(factory) or factory  # `dict[str, int]` builds plain dicts
    if origin in _SAFE_FACTORIES or (isinstance(origin, type) and dataclasses.is_dataclass(origin)):
        return type(value) is origin and value == factory()
    return False


def compact(value: Any, *, keep_top_level: bool = False) -> Any:
    """`value` with the runtime's dataclasses turned into dicts without their default fields (recursively)."""
    if _owned(value):
        if hasattr(type(value), '__pydantic_serializer__'):
            return value  # written by its own serializer (e.g. base64 data)
        out: dict[str, Any] = {}
        for field in dataclasses.fields(value):
            item = getattr(value, field.name)
            if not keep_top_level and _at_default(field, item):
                continue
            out[field.name] = compact(item)
        return out
    if isinstance(value, list | tuple):
        items: list[Any] = [compact(item) for item in value]
        return items
    if isinstance(value, dict):
        mapping: dict[Any, Any] = {key: compact(item) for key, item in value.items()}
        return mapping
    return value
