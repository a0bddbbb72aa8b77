"""The JSON schema of what a tool function returns, sent to the model when the tool opts in.

Every function gets one: `{}` when nothing is known about the result (no annotation, `Any`, a bare `ToolReturn`,
or a type pydantic cannot describe, which also warns), `{'type': 'null'}` for `-> None`. A `ToolReturn[T]`
describes the `T` the model sees, and `Self` on a bound method the class of the instance it is bound to.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any, Self, get_args, get_origin

from pydantic import PydanticUserError, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema

from ._content import ToolReturn

__all__ = ('function_return_schema',)


def _extract_return_schema_type(return_annotation: Any, function: Callable[..., Any]) -> Any:
    """The type whose schema describes what `function` returns to the model, given its return annotation.

    `None` or `inspect.Signature.empty` (no annotation) and a bare `ToolReturn` give `Any`; `ToolReturn[T]` gives
    `T`; `Self` gives the class of the object a bound method is bound to, or `Any` when there is no such object.
    """
    if return_annotation is None or return_annotation is inspect.Signature.empty or return_annotation is ToolReturn:
        return Any
    if return_annotation is Self:
        bound_to: object | None = getattr(function, '__self__', None)
        return Any if bound_to is None else type(bound_to)
    if get_origin(return_annotation) is ToolReturn:
        args = get_args(return_annotation)
        return args[0] if args else Any
    return return_annotation


def function_return_schema(
    return_annotation: Any, function: Callable[..., Any], schema_generator: type[GenerateJsonSchema]
) -> dict[str, Any]:
    """The JSON schema (serialization mode) of what `function` returns; `{}` when nothing is known about it.

    A return type pydantic cannot describe does not stop the function from being a tool: it warns (a
    `UserWarning`, since the model would otherwise silently get no return schema) and gives `{}`.
    """
    return_type = _extract_return_schema_type(return_annotation, function)
    if return_type is Any:
        return {}
    if return_type is type(None):
        return {'type': 'null'}
    try:
        return TypeAdapter[Any](return_type).json_schema(schema_generator=schema_generator, mode='serialization')
    except PydanticUserError:
        name = getattr(function, '__qualname__', None) or repr(function)
        warnings.warn(
            f'Could not generate return schema for {name!r}: unsupported return type {return_annotation!r}. '
            'Falling back to unconstrained schema.',
            UserWarning,
            stacklevel=4,
        )
        return {}
