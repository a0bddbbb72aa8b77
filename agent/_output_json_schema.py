"""`Agent.output_json_schema()`: the JSON schema of what a run returns, whatever form `output_type` takes."""

from __future__ import annotations

import types
from collections.abc import Sequence
from typing import Any, Union, get_args, get_origin, get_type_hints

import pydantic

__all__ = ('output_json_schema',)


def output_json_schema(output_type: Any) -> dict[str, Any]:
    """The (serialization) JSON schema of the run output for `output_type`; several types give an `anyOf`."""
    schemas: list[dict[str, Any]] = []
    for return_type in _return_types(output_type):
        schema = pydantic.TypeAdapter[Any](return_type).json_schema(mode='serialization')
        if schema not in schemas:
            schemas.append(schema)
    if len(schemas) == 1:
        return schemas[0]
    defs: dict[str, Any] = {}
    members: list[dict[str, Any]] = []
    for schema in schemas:
        defs.update(schema.get('$defs', {}))
        members.append({k: v for k, v in schema.items() if k != '$defs'})
    merged: dict[str, Any] = {'anyOf': members}
    if defs:
        merged['$defs'] = defs
    return merged


def _return_types(spec: Any) -> list[Any]:
    """The types a run may return for an output spec: markers unwrapped, functions by their return type."""
    if isinstance(spec, Sequence) and not isinstance(spec, str):
        return [t for item in spec for t in _return_types(item)]  # pyright: ignore[reportUnknownVariableType]
    if get_origin(spec) is Union or isinstance(spec, types.UnionType):
        return [t for arg in get_args(spec) for t in _return_types(arg)]
    if isinstance(spec, type) or get_origin(spec) is not None:
        return [spec]
    # Output markers (ToolOutput, NativeOutput, PromptedOutput, TextOutput) wrap the real output spec.
    for attribute in ('outputs', 'output_type'):
        if (inner := getattr(spec, attribute, None)) is not None:
            return _return_types(inner)
    if (function := getattr(spec, 'output_function', None)) is not None:
        return _function_return_types(function)
    if callable(spec):
        return _function_return_types(spec)
    return [spec]


def _function_return_types(function: Any) -> list[Any]:
    try:
        hint = get_type_hints(function).get('return', Any)
    except Exception:  # unresolvable annotations: the output is described as anything
        hint = Any
    # An async function's annotation is already what its awaited result is.
    return _return_types(hint) if hint is not Any else [Any]
