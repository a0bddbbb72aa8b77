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
import enum
import typing
from typing import Any

__all__ = ('compact',)

DISCRIMINATORS = frozenset({'kind', 'part_kind', 'event_kind', 'part_delta_kind'})
"""Fields that select a member of a union: never left out."""

_OWN_MODULES = ('agent.', 'activities.', 'workflows.')
_SAFE_FACTORIES: tuple[Any, ...] = (list, dict, tuple, set, frozenset)

_NEVER: Any = object()
"""A field's "default" when it has none that can be left out (or it is a discriminator)."""


def _default_of(field: dataclasses.Field[Any]) -> Any:
    """The value a field may be left out at, or `_NEVER`."""
    if field.name in DISCRIMINATORS:
        return _NEVER
    if field.default is not dataclasses.MISSING:
        return field.default
    factory: Any = field.default_factory
    if factory is dataclasses.MISSING:
        return _NEVER
    # Only factories without side effects are called: containers and the runtime's own dataclasses (ids and
    # timestamps come from factories that draw on the run's clock and random source, and are never defaults).
    origin = typing.get_origin(factory) or factory  # `dict[str, int]` builds plain dicts
    if origin in _SAFE_FACTORIES or (isinstance(origin, type) and dataclasses.is_dataclass(origin)):
        return factory()
    return _NEVER


def _safe_default(cls: type, field: dataclasses.Field[Any]) -> Any:
    """`field`'s default if every dataclass `cls` derives from that declares the field agrees on it, else `_NEVER`.

    A typed subclass (e.g. `LoadCapabilityCallPart`) may give a field a default its base lacks or has otherwise;
    pydantic decodes the JSON as the base class wherever a payload declares the base, so such a field is kept.
    """
    default = _default_of(field)
    if default is _NEVER:
        return _NEVER
    for base in cls.__mro__[1:]:
        declared = getattr(base, '__dataclass_fields__', {}).get(field.name)
        if declared is not None and _differs(_default_of(declared), default):
            return _NEVER
    return default


def _differs(a: Any, b: Any) -> bool:
    return a is _NEVER or type(a) is not type(b) or a != b


# How each type is written, worked out once per type: this runs for every value of every payload, inside the
# workflow sandbox, where each `isinstance` and `dataclasses` call is a chain of Python calls.
class _Kind(enum.Enum):
    LEAF = 'written as it is'
    SEQUENCE = 'a list of compacted items'
    MAPPING = 'a dict of compacted values'
    FIELDS = 'a dict of the fields not at their defaults'


_Fields = tuple[tuple[str, Any], ...]
"""An owned dataclass's fields, each with the value it is left out at (compared by type and equality)."""
_plans: dict[type, tuple[_Kind, _Fields]] = {}


def _plan(cls: type) -> tuple[_Kind, _Fields]:
    plan = _plans.get(cls)
    if plan is None:
        if cls.__module__.startswith(_OWN_MODULES) and dataclasses.is_dataclass(cls):
            if hasattr(cls, '__pydantic_serializer__'):
                plan = (_Kind.LEAF, ())  # written by its own serializer (e.g. base64 data)
            else:
                plan = (
                    _Kind.FIELDS,
                    tuple((field.name, _safe_default(cls, field)) for field in dataclasses.fields(cls)),
                )
        elif issubclass(cls, list | tuple):
            plan = (_Kind.SEQUENCE, ())
        elif issubclass(cls, dict):
            plan = (_Kind.MAPPING, ())
        else:
            plan = (_Kind.LEAF, ())
        _plans[cls] = plan
    return plan


def compact(value: Any, *, keep_top_level: bool = False) -> Any:
    """`value` with the runtime's dataclasses turned into dicts without their default fields (recursively)."""
    kind, fields = _plan(type(value))
    if kind is _Kind.LEAF:
        return value
    if kind is _Kind.SEQUENCE:
        return [compact(item) for item in value]
    if kind is _Kind.MAPPING:
        return {key: compact(item) for key, item in value.items()}
    out: dict[str, Any] = {}
    for name, default in fields:
        item = getattr(value, name)
        if not keep_top_level and default is not _NEVER and type(item) is type(default) and item == default:
            continue
        out[name] = compact(item)
    return out
