"""Values that read as properties and still answer the call of the method they used to be.

Pydantic AI turned accessors such as `result.usage()` and `stream.get()` into properties (`result.usage`,
`stream.response`) and keeps the call form working through the 1.x series. `callable_value(value)` returns a copy of
`value` of a subclass that adds `__call__` (returning the value itself), so `result.usage == RunUsage(...)` and
`result.usage()` both hold, and `isinstance` checks are unchanged. Equality and `repr` are those of the original
class, so such a value compares equal to (and prints like) a plain one.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, TypeVar

__all__ = ('callable_value',)

T = TypeVar('T')

_subclasses: dict[type[Any], type[Any]] = {}


def callable_value(value: T) -> T:
    """A copy of the dataclass instance `value` that can also be called (returning itself)."""
    base = type(value)
    if base in _subclasses.values():
        return value
    subclass = _subclasses.get(base)
    if subclass is None:
        subclass = _subclasses[base] = _make_subclass(base)
    result = copy.copy(value)
    object.__setattr__(result, '__class__', subclass)
    return result


def _make_subclass(base: type[Any]) -> type[Any]:
    names = [field.name for field in dataclasses.fields(base)]

    def __call__(self: Any) -> Any:
        return self

    def __eq__(self: Any, other: object) -> bool:
        if not isinstance(other, base):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in names)

    namespace: dict[str, Any] = {
        '__call__': __call__,
        '__eq__': __eq__,
        '__hash__': None,
        '__repr__': base.__repr__,
        '__doc__': base.__doc__,
        '__qualname__': base.__qualname__,
    }
    return type(base.__name__, (base,), namespace)
