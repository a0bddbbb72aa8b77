"""Parameter descriptions from attribute docstrings (a field followed by a string literal) in tool schemas.

Pydantic reads them for a type whose config has `use_attribute_docstrings=True`, and a nested `TypedDict` or
dataclass without a config of its own takes its parent's. So the generated `TypedDict`s that describe a tool's
arguments get that config, and the types of their fields are described with their attributes' docstrings.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any, get_args, get_type_hints

from pydantic import ConfigDict, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema
from typing_extensions import TypedDict, is_typeddict

__all__ = ('adapter_reading_attribute_docstrings', 'schema_with_attribute_docstrings')

_CONFIG = ConfigDict(use_attribute_docstrings=True)

# Pyright only understands `TypedDict(...)` with a literal dict of fields; we build the fields at runtime.
_make_typed_dict: Any = TypedDict

# Reading attribute docstrings parses source files (`inspect` finds a class by parsing its module). CPython 3.11
# before 3.11.8 keeps one recursion counter for turning parsed source into `ast` objects, shared by every thread:
# tools built at once in several threads (sync toolset functions run in threads) could fail with "AST constructor
# recursion depth mismatch". One thread at a time builds such an adapter.
_SOURCE_READING = threading.Lock()


def _takes_attribute_docstrings(annotation: Any, seen: set[int]) -> bool:
    """Whether `annotation` holds a dataclass or `TypedDict` (nested anywhere), the types that inherit the config."""
    if id(annotation) in seen:
        return False
    seen.add(id(annotation))
    if isinstance(annotation, type):
        cls: type[Any] = annotation
        if is_typeddict(cls) or dataclasses.is_dataclass(cls):
            return True
    return any(_takes_attribute_docstrings(arg, seen) for arg in get_args(annotation))


def _field_types(typed_dict: Any) -> list[Any]:
    try:
        return list(get_type_hints(typed_dict, include_extras=True).values())
    except Exception:  # an unresolvable forward reference: let pydantic report it, reading docstrings as asked
        return [typed_dict]


def adapter_reading_attribute_docstrings(typed_dict: Any) -> TypeAdapter[Any]:
    """An adapter for a generated `TypedDict` whose nested types without a config read their attribute docstrings.

    Reading them needs the source code; where it cannot be read at all (Temporal's workflow sandbox, for a tool
    built inside a workflow, makes `inspect` fail with a `TypeError`), the types are described without them.
    """
    seen: set[int] = set()
    if not any(_takes_attribute_docstrings(field, seen) for field in _field_types(typed_dict)):
        # Nothing in it has attribute docstrings to read: skip parsing the source of the tool's module.
        return TypeAdapter(typed_dict)
    typed_dict.__pydantic_config__ = _CONFIG
    with _SOURCE_READING:
        try:
            return TypeAdapter(typed_dict)
        except TypeError:
            del typed_dict.__pydantic_config__
            return TypeAdapter(typed_dict)


def schema_with_attribute_docstrings(
    name: str, annotation: Any, schema_generator: type[GenerateJsonSchema]
) -> dict[str, Any]:
    """The JSON schema of `annotation`, whose fields without a config of their own take their docstrings.

    A `TypeAdapter` cannot be given a config for a `TypedDict` or model, so the type is described as the one
    field of a configured `TypedDict`, whose configuration its nested types without one inherit.
    """
    holder = _make_typed_dict('Holder', {name: annotation})
    holder.__module__ = getattr(annotation, '__module__', __name__)
    holder_adapter = adapter_reading_attribute_docstrings(holder)
    holder_schema = holder_adapter.json_schema(schema_generator=schema_generator, mode='validation')
    json_schema: dict[str, Any] = dict(holder_schema['properties'][name])
    if '$defs' in holder_schema:
        json_schema['$defs'] = holder_schema['$defs']
    return json_schema
