"""Named specs: an object described as its registered name plus the arguments to construct it with.

Specs (agent specs, and anything else built from YAML or JSON) name a class and give its arguments in one of
three forms: a bare name (`'Thinking'`), a one-key mapping to keyword arguments (`{'WebSearch': {'local':
True}}`), or a one-key mapping to a single positional argument (`{'WebSearch': True}`, `{'Tags': [1, 2]}`).
The long form `{'name': ..., 'arguments': ...}` is accepted too and is what a dump gives unless the
`use_short_form` serialization context asks for the short one.

A registry maps names to classes (`build_registry`); `load_from_registry` turns a `NamedSpec` into an instance;
`build_schema_types` describes what each registered name accepts, for JSON schemas of spec files.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, NotRequired, TypeVar, cast

import pydantic
from pydantic_core import to_jsonable_python
from typing_extensions import TypedDict

__all__ = ('NamedSpec', 'build_registry', 'build_schema_types', 'load_from_registry')

T = TypeVar('T')


def _all_string_keys(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) for k in cast('dict[Any, Any]', value))


class NamedSpec(pydantic.BaseModel):
    """A registered name plus the arguments to construct the named class with."""

    name: str
    """The name the class is registered under."""

    arguments: tuple[Any] | dict[str, Any] | None = None
    """`None` for no arguments, a one-element tuple for a single positional argument, or keyword arguments."""

    @property
    def args(self) -> tuple[Any, ...]:
        """The positional arguments (empty unless `arguments` is a tuple)."""
        return self.arguments if isinstance(self.arguments, tuple) else ()

    @property
    def kwargs(self) -> dict[str, Any]:
        """The keyword arguments (empty unless `arguments` is a dict)."""
        return self.arguments if isinstance(self.arguments, dict) else {}

    @pydantic.model_validator(mode='before')
    @classmethod
    def _short_forms(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {'name': value, 'arguments': None}
        if not isinstance(value, dict):
            return value
        data = cast('dict[Any, Any]', value)
        if 'name' in data and set(data) <= {'name', 'arguments'} and isinstance(data['name'], str):
            return data  # the long form
        if len(data) != 1:
            raise ValueError(f'Expected a single key naming the class, found keys {list(data)}')
        ((name, argument),) = data.items()
        if argument is None:
            return {'name': name, 'arguments': None}
        if _all_string_keys(argument):
            return {'name': name, 'arguments': argument}
        return {'name': name, 'arguments': (argument,)}

    @pydantic.model_serializer(mode='wrap')
    def _serialize(self, handler: pydantic.SerializerFunctionWrapHandler, info: pydantic.SerializationInfo) -> Any:
        context = info.context
        if not (isinstance(context, dict) and cast('dict[str, Any]', context).get('use_short_form')):
            return handler(self)
        if self.arguments is None:
            return self.name
        if isinstance(self.arguments, tuple):
            # A single argument that dumps as a string-keyed mapping would read back as keyword arguments,
            # so it keeps the long form.
            if _all_string_keys(to_jsonable_python(self.arguments[0], serialize_unknown=True)):
                return handler(self)
            return {self.name: self.arguments[0]}
        return {self.name: self.arguments}


def build_registry(
    *,
    custom_types: Sequence[type[T]],
    defaults: Sequence[type[T]],
    get_name: Callable[[type[T]], str | None],
    label: str,
    validate: Callable[[type[T]], None] | None = None,
) -> Mapping[str, type[T]]:
    """Map names to classes: the custom types first (they win), then the defaults that have a name.

    Args:
        custom_types: Classes the user registers; each must have a name, and names must be unique.
        defaults: Built-in classes; one whose name is `None` is left out, one a custom type shadows is skipped.
        get_name: The name a class is registered under (`None` opts out).
        label: What the classes are, for error messages (`'capability'`).
        validate: Called with each custom type before it is registered; raises to refuse it.

    Raises:
        ValueError: for a custom type without a name, or two custom types with the same name.
    """
    registry: dict[str, type[T]] = {}
    for cls in custom_types:
        if validate is not None:
            validate(cls)
        name = get_name(cls)
        if name is None:
            raise ValueError(f'Custom {label} class {cls.__name__} has opted out of serialization (name is None)')
        if name in registry:
            raise ValueError(f'Duplicate {label} class name: {name!r}')
        registry[name] = cls
    for cls in defaults:
        name = get_name(cls)
        if name is not None:
            registry.setdefault(name, cls)
    return registry


def load_from_registry(
    registry: Mapping[str, type[T]],
    spec: NamedSpec,
    *,
    label: str,
    custom_types_param: str,
    context: str | None = None,
    instantiate: Callable[[type[T], tuple[Any, ...], dict[str, Any]], T] | None = None,
    legacy_aliases: Mapping[str, str] | None = None,
) -> T:
    """Construct the object a spec names.

    Args:
        registry: Names to classes (see `build_registry`).
        spec: The name and arguments.
        label: What the classes are, for error messages.
        custom_types_param: The parameter users register custom types with, named in the unknown-name error.
        context: Where the spec came from, added to the instantiation error.
        instantiate: Builds the instance from the class and arguments (default: `cls(*args, **kwargs)`).
        legacy_aliases: Old names mapped to current ones; using one warns.

    Raises:
        ValueError: for an unknown name, or when constructing the object fails (the cause is chained).
    """
    name = spec.name
    if legacy_aliases is not None and name in legacy_aliases:
        import warnings

        from ._warnings import PydanticAIDeprecationWarning

        renamed = legacy_aliases[name]
        warnings.warn(
            f"In {label} specs, the name '{name}' is deprecated; use '{renamed}'.",
            PydanticAIDeprecationWarning,
            stacklevel=2,
        )
        name = renamed
    cls = registry.get(name)
    if cls is None:
        raise ValueError(
            f'{label.capitalize()} {name!r} is not in the provided `{custom_types_param}`. Valid choices: '
            f'{list(registry)}. To use a custom {label}, include its type in `{custom_types_param}`.'
        )
    try:
        if instantiate is not None:
            return instantiate(cls, spec.args, spec.kwargs)
        return cls(*spec.args, **spec.kwargs)
    except Exception as exc:
        where = f' for {context}' if context else ''
        raise ValueError(f'Failed to instantiate {label} {spec.name!r}{where}: {exc}') from exc


def _json_representable(tp: Any) -> Any | None:
    """`tp` without what a JSON schema cannot describe (type variables, callables); `None` if nothing is left."""
    if isinstance(tp, TypeVar):
        return None
    origin = typing.get_origin(tp)
    if origin is Callable or tp is Callable:
        return None
    args = typing.get_args(tp)
    if origin is typing.Union or isinstance(tp, types.UnionType):
        kept = [k for a in args if (k := _json_representable(a)) is not None]
        if not kept:
            return None
        return kept[0] if len(kept) == 1 else typing.Union[tuple(kept)]  # noqa: UP007
    if args and any(_json_representable(a) is None for a in args if a is not Ellipsis):
        return None
    return tp


def _typed_dict(title: str, fields: dict[str, Any]) -> Any:
    td = TypedDict(title, fields)  # pyright: ignore[reportArgumentType]
    td.__pydantic_config__ = pydantic.ConfigDict(extra='forbid', arbitrary_types_allowed=True)  # pyright: ignore[reportAttributeAccessIssue]
    return td


def build_schema_types(
    registry: Mapping[str, type[Any]],
    *,
    get_schema_target: Callable[[type[Any]], Any] | None = None,
) -> list[Any]:
    """Types describing every spec form each registered name accepts, to put in a `Union` for a JSON schema.

    A name whose parameters are all optional can be given bare (`Literal[name]`); one with a single parameter (or
    a single required one) can be given as `{name: value}`; one with several parameters as `{name: {param: value}}`.

    Args:
        registry: Names to classes.
        get_schema_target: The callable whose signature describes a class's arguments (default: the class itself).
    """
    from ._function_schema import _type_hints  # pyright: ignore[reportPrivateUsage]

    schema_types: list[Any] = []
    for name, cls in registry.items():
        target = get_schema_target(cls) if get_schema_target is not None else cls
        signature = inspect.signature(target)
        hints = _type_hints(target, signature)
        fields: dict[str, Any] = {}
        bare: dict[str, Any] = {}
        required: dict[str, Any] = {}
        for param in signature.parameters.values():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD) or param.name in ('self', 'cls'):
                continue
            tp = _json_representable(hints.get(param.name, Any))
            if tp is None:
                continue
            bare[param.name] = tp
            if param.default is param.empty:
                fields[param.name] = required[param.name] = tp
            else:
                fields[param.name] = NotRequired[tp]
        if not required:
            schema_types.append(Literal[name])
        if len(bare) == 1:
            schema_types.append(_typed_dict(f'short_spec_{name}', {name: next(iter(bare.values()))}))
        elif len(required) == 1:
            schema_types.append(_typed_dict(f'short_spec_{name}', {name: next(iter(required.values()))}))
        if len(fields) > 1:
            schema_types.append(_typed_dict(f'spec_{name}', {name: _typed_dict(f'spec_params_{name}', fields)}))
    return schema_types
