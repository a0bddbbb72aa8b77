"""Turning a Python function into a tool: a JSON schema for its parameters, a validator and a way to call it.

The parameters (minus the leading `RunContext` one, if any) become the fields of a `TypedDict` built on the fly.
Pydantic then gives us both the JSON schema the model sees and a validator that turns the model's arguments into
a dict of Python values keyed by parameter name, ready to be passed to the function.

A function whose only parameter is object-shaped (a Pydantic model, dataclass or `TypedDict`) is the exception:
the model sees that type's own schema, so it writes the object's fields at the top level instead of nesting them
under the parameter's name. The validator still returns `{parameter_name: value}`, and it also accepts that
wrapped shape, which is what a caller re-validating already validated arguments passes.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, NotRequired, Required, cast

from pydantic import BaseModel, Field, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import CoreSchema, SchemaValidator, core_schema
from typing_extensions import TypedDict, is_typeddict

from ._attribute_docstrings import adapter_reading_attribute_docstrings, schema_with_attribute_docstrings
from ._docstrings import DocstringFormat, parse_docstring, tool_description

# Re-exported where Pydantic AI's tests look for it.
from ._return_schema import (
    _extract_return_schema_type as _extract_return_schema_type,  # pyright: ignore[reportPrivateUsage]
)
from ._return_schema import function_return_schema
from ._threads import is_async_callable, run_sync_in_thread
from .exceptions import UserError

__all__ = ('FunctionSchema', 'GenerateToolJsonSchema', 'function_schema', 'is_model_like')

# Pyright only understands `TypedDict(...)` with a literal dict of fields; we build the fields at runtime.
_make_typed_dict: Callable[..., Any] = TypedDict


# Used when an annotation could not be evaluated and is still a string, e.g. `RunContext[Deps]` where `Deps`
# is only imported under `TYPE_CHECKING`.
_RUN_CONTEXT_STRING = re.compile(r'^\s*(?:[\w.]+\.)?RunContext\s*(?:\[.*\])?\s*$', re.DOTALL)


@dataclass(kw_only=True)
class FunctionSchema:
    """Everything needed to describe a function to a model and to call it with the model's arguments."""

    function: Callable[..., Any]
    """The function itself."""
    description: str | None
    """The description from the function's docstring, if any."""
    validator: SchemaValidator
    """Validates a dict (or JSON object) of arguments into a dict of Python values keyed by parameter name."""
    json_schema: dict[str, Any]
    """Object JSON schema of the parameters, without the run context parameter."""
    takes_ctx: bool
    """Whether the function's first parameter receives the run context."""
    is_async: bool
    """Whether the function is async; sync functions are run in a worker thread."""
    return_schema: dict[str, Any] | None = None
    """JSON schema of the return annotation: `{}` when unannotated or `Any`, `{'type': 'null'}` for `None`."""
    positional_fields: list[str] = field(default_factory=list[str])
    """Parameters that must be passed positionally: positional-only ones, plus all positional-or-keyword ones
    when the function takes `*args` (otherwise they would clash with the `*args` values)."""
    var_positional_field: str | None = None
    """The name of the `*args` parameter; in the schema it is an array property of that name."""
    single_arg_name: str | None = None
    """The parameter name, if the function takes exactly one parameter and its type is object-shaped
    (a model, dataclass or `TypedDict`); the JSON schema is then that type's own schema."""

    @property
    def single_field_name(self) -> str | None:
        """The name of the only parameter carrying the model's arguments, if there is exactly one."""
        if self.single_arg_name is not None:
            return self.single_arg_name
        properties: dict[str, Any] = self.json_schema.get('properties', {})
        return next(iter(properties)) if len(properties) == 1 else None

    def validate_python(self, args: dict[str, Any], *, context: Any = None) -> dict[str, Any]:
        """Validate a dict of arguments, raising `pydantic.ValidationError` if they are invalid.

        Args:
            args: The arguments, keyed by parameter name.
            context: Passed to validators as the pydantic validation context.

        Returns:
            The validated arguments, keyed by parameter name, with defaults filled in.
        """
        return cast('dict[str, Any]', self.validator.validate_python(args, context=context))

    def validate_json(self, args: str | bytes, *, context: Any = None) -> dict[str, Any]:
        """Validate a JSON object of arguments, raising `pydantic.ValidationError` if it is invalid.

        Models sometimes send an empty string for a tool without parameters, so that is read as `{}`.

        Args:
            args: The arguments as a JSON object.
            context: Passed to validators as the pydantic validation context.

        Returns:
            The validated arguments, keyed by parameter name, with defaults filled in.
        """
        if not args.strip():
            args = '{}'
        return cast('dict[str, Any]', self.validator.validate_json(args, context=context))

    async def call(self, args: dict[str, Any], ctx: Any) -> Any:
        """Call the function with validated arguments.

        Args:
            args: Validated arguments, as returned by `validate_python` / `validate_json`.
            ctx: The run context; passed as the first argument if `takes_ctx`, ignored otherwise.

        Returns:
            The function's (awaited) return value.
        """
        keyword = dict(args)
        positional: list[Any] = [ctx] if self.takes_ctx else []
        for name in self.positional_fields:
            if name not in keyword:
                break
            positional.append(keyword.pop(name))
        if self.var_positional_field is not None:
            positional.extend(keyword.pop(self.var_positional_field, ()))
        if self.is_async:
            return await self.function(*positional, **keyword)
        return await run_sync_in_thread(self.function, *positional, **keyword)


class GenerateToolJsonSchema(GenerateJsonSchema):
    """JSON schema generation tuned for tool parameters.

    The titles pydantic derives from field names are left out: models don't need them, and they add tokens.
    A type's own title (a model's class name, say) is kept, as are `$defs` and references to them.
    """

    def field_title_should_be_set(
        self,
        schema: CoreSchema
        | core_schema.ModelField
        | core_schema.DataclassField
        | core_schema.TypedDictField
        | core_schema.ComputedField,
    ) -> bool:
        """Never add the titles pydantic derives from field names."""
        return False


def function_schema(
    function: Callable[..., Any],
    schema_generator: type[GenerateJsonSchema] = GenerateToolJsonSchema,
    *,
    takes_ctx: bool | None = None,
    docstring_format: DocstringFormat = 'auto',
    require_parameter_descriptions: bool = False,
    tool_name: str | None = None,
) -> FunctionSchema:
    """Build the schema, validator and calling convention of a tool function.

    Args:
        function: The function (or other callable) to describe.
        schema_generator: The JSON schema generator class to use.
        takes_ctx: Whether the first parameter receives the run context. `None` infers it from whether the
            first parameter is annotated as `RunContext`.
        docstring_format: The style of the function's docstring.
        require_parameter_descriptions: Raise `UserError` if any parameter lacks a description.
        tool_name: The tool's name, used in error messages; defaults to the function's name.

    Returns:
        The function's schema.

    Raises:
        UserError: If the function can't be used as a tool as requested.
    """
    name = tool_name or _callable_name(function)
    qualified_name = getattr(_unwrap_partial(function), '__qualname__', name)
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError) as e:
        raise _schema_error(qualified_name, [str(e)]) from e
    hints = _type_hints(function, signature)
    parameters = list(signature.parameters.values())

    if takes_ctx is None:
        takes_ctx = bool(parameters) and _is_run_context(hints[parameters[0].name])
    errors = _run_context_errors(parameters, hints, takes_ctx=takes_ctx)
    if errors:
        raise _schema_error(qualified_name, errors)
    if takes_ctx:
        parameters = parameters[1:]

    raw_doc = inspect.getdoc(_unwrap_partial(function))
    doc = parse_docstring(
        raw_doc,
        format=docstring_format,
        param_names=[parameter.name for parameter in parameters],
    )

    fields: dict[str, Any] = {}
    missing_descriptions: list[str] = []
    positional_fields: list[str] = []
    var_positional_field: str | None = None
    extra_items: Any = None
    has_var_positional = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters)
    for parameter in parameters:
        annotation = hints[parameter.name]
        default: Any = parameter.default
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            # Extra keys of the arguments object are passed on as `**kwargs`.
            extra_items = annotation
            continue
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            var_positional_field = parameter.name
            annotation = types.GenericAlias(list, (annotation,))
            default = Field(default_factory=list)
        elif parameter.kind is inspect.Parameter.POSITIONAL_ONLY or (
            parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and has_var_positional
        ):
            positional_fields.append(parameter.name)

        fields[parameter.name], has_description = _field_type(annotation, default, doc.params.get(parameter.name))
        if not has_description:
            missing_descriptions.append(parameter.name)

    if require_parameter_descriptions and missing_descriptions:
        raise _schema_error(qualified_name, [f'Missing parameter descriptions for {", ".join(missing_descriptions)}'])

    if extra_items is None:
        arguments_type = _make_typed_dict(name, fields, closed=True)
    else:
        arguments_type = _make_typed_dict(name, fields, extra_items=extra_items)
    # Forward references left inside annotations (e.g. `list['Item']`) resolve in the function's module.
    arguments_type.__module__ = getattr(_unwrap_partial(function), '__module__', __name__)
    adapter: TypeAdapter[dict[str, Any]] = adapter_reading_attribute_docstrings(arguments_type)
    validator = adapter.validator
    if not isinstance(validator, SchemaValidator):  # pragma: no cover - only with pydantic plugins installed
        validator = SchemaValidator(adapter.core_schema)

    json_schema = adapter.json_schema(schema_generator=schema_generator, mode='validation')
    # The arguments TypedDict is named after the function, which tells the model nothing the tool name doesn't.
    json_schema.pop('title', None)
    json_schema = _object_schema(json_schema)
    description = tool_description(doc)
    if description is None and raw_doc is not None:
        description = ''  # a docstring without a summary (only sections) still gives a description, an empty one

    named = [p for p in parameters if p.kind is not inspect.Parameter.VAR_KEYWORD]
    single_arg_name: str | None = None
    if (
        len(named) == 1
        and extra_items is None
        and named[0].kind is not inspect.Parameter.VAR_POSITIONAL
        and is_model_like(hints[named[0].name])
    ):
        single_arg_name = named[0].name
        validator, json_schema = _single_object_schema(single_arg_name, hints[single_arg_name], schema_generator)
        if not description:
            # The type's docstring describes what the tool takes, which is the next best thing.
            description = json_schema.pop('description', None)

    return FunctionSchema(
        function=function,
        description=description,
        validator=validator,
        json_schema=json_schema,
        takes_ctx=takes_ctx,
        is_async=is_async_callable(function),
        return_schema=function_return_schema(hints.get('return'), function, schema_generator),
        positional_fields=positional_fields,
        var_positional_field=var_positional_field,
        single_arg_name=single_arg_name,
    )


def _schema_error(qualified_name: str, errors: list[str]) -> UserError:
    """The error for a function that cannot be a tool as asked, one problem per indented line."""
    return UserError(f'Error generating schema for {qualified_name}:\n  ' + '\n  '.join(errors))


def _run_context_errors(parameters: list[inspect.Parameter], hints: dict[str, Any], *, takes_ctx: bool) -> list[str]:
    """What is wrong with where `RunContext` is (or is not) among a tool function's parameters."""
    errors: list[str] = []
    if takes_ctx and not parameters:
        errors.append('Tools that take context need a first parameter to receive the RunContext')
    for index, parameter in enumerate(parameters):
        is_ctx = _is_run_context(hints[parameter.name])
        if index == 0 and takes_ctx:
            # An unannotated first parameter is trusted to be the context.
            if parameter.annotation is not inspect.Parameter.empty and not is_ctx:
                errors.append('First parameter of tools that take context must be annotated with RunContext[...]')
            elif parameter.kind not in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
                errors.append('The RunContext parameter must be an ordinary positional parameter')
        elif is_ctx and not takes_ctx:
            errors.append('RunContext annotations can only be used with tools that take context')
        elif is_ctx:
            errors.append('RunContext annotations can only be used as the first argument')
    return errors


def _takes_ctx(function: Callable[..., Any]) -> bool:  # pyright: ignore[reportUnusedFunction]
    """Whether `function`'s first parameter is annotated as a `RunContext` (what `takes_ctx=None` infers).

    Works for functions, partials, bound and static methods and callable instances; anything whose
    signature cannot be read (some builtins) takes no context.
    """
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return False
    parameters = list(signature.parameters.values())
    if not parameters:
        return False
    return _is_run_context(_type_hints(function, signature)[parameters[0].name])


def _field_type(annotation: Any, default: Any, doc_description: str | None) -> tuple[Any, bool]:
    """Return the `TypedDict` field type for a parameter, and whether the parameter has a description."""
    if default is inspect.Parameter.empty:
        info = FieldInfo.from_annotation(annotation)
    else:
        info = FieldInfo.from_annotated_attribute(annotation, default)

    metadata: list[Any] = []
    # An explicit `Field(description=...)` wins over the docstring.
    if info.description is None and doc_description:
        metadata.append(Field(description=doc_description))
    if default is not inspect.Parameter.empty:
        metadata.append(default if isinstance(default, FieldInfo) else Field(default=default))
    field_type = Annotated[(annotation, *metadata)] if metadata else annotation
    wrapped = Required[field_type] if info.is_required() else NotRequired[field_type]
    return wrapped, bool(info.description or doc_description)


def _object_schema(json_schema: dict[str, Any]) -> dict[str, Any]:
    """Put the parameters schema in a predictable shape: always with `properties`, `required` only when non-empty.

    Leaving out an empty `required` list matches what pydantic (and so Pydantic AI) emits, which users' schema
    snapshots pin.
    """
    ordered: dict[str, Any] = {'type': 'object', 'properties': json_schema.pop('properties', {})}
    if required := json_schema.pop('required', []):
        ordered['required'] = required
    ordered['additionalProperties'] = json_schema.pop('additionalProperties', False)
    json_schema.pop('type', None)
    ordered.update(json_schema)
    return ordered


def _single_object_schema(
    name: str, annotation: Any, schema_generator: type[GenerateJsonSchema]
) -> tuple[SchemaValidator, dict[str, Any]]:
    """The validator and JSON schema of a function whose only parameter, `name`, is object-shaped."""
    adapter: TypeAdapter[Any] = TypeAdapter(annotation)
    json_schema = _inline_top_level_ref(schema_with_attribute_docstrings(name, annotation, schema_generator))
    keys = frozenset(cast('dict[str, Any]', json_schema.get('properties', {})))

    def validate(value: Any, handler: core_schema.ValidatorFunctionWrapHandler) -> dict[str, Any]:
        if not (isinstance(value, dict) and list(cast('dict[str, Any]', value)) == [name]):
            return {name: handler(value)}
        if name not in keys:
            return {name: handler(value[name])}
        # The type has a field with the parameter's name, so `{name: ...}` is most likely the object itself;
        # only if it isn't valid as such is it read as the wrapped arguments.
        try:
            return {name: handler(value)}
        except ValidationError:
            return {name: handler(value[name])}

    validator = SchemaValidator(core_schema.no_info_wrap_validator_function(validate, adapter.core_schema))
    return validator, json_schema


def _inline_top_level_ref(json_schema: dict[str, Any]) -> dict[str, Any]:
    """Replace a top-level `$ref` (pydantic makes one for recursive types) by the definition it points to.

    Tool parameters must be an object schema at the top level; `$defs` stay for the references inside it.
    """
    ref = json_schema.get('$ref')
    defs: dict[str, Any] = json_schema.get('$defs', {})
    if not isinstance(ref, str) or not ref.startswith('#/$defs/'):
        return json_schema
    key = ref.removeprefix('#/$defs/')
    target = dict(defs.get(key, {}))
    remaining = {k: v for k, v in defs.items() if k != key}
    if f'"{ref}"' in json.dumps([target, remaining]):
        # The type refers to itself (directly or through another definition): its definition must stay.
        remaining[key] = defs[key]
    if remaining:
        target['$defs'] = remaining
    return target


def _type_hints(function: Callable[..., Any], signature: inspect.Signature) -> dict[str, Any]:
    """Resolve the annotations of `function`'s parameters (and return), `Any` where there is none."""
    target = _hints_target(function)
    try:
        resolved = typing.get_type_hints(target, include_extras=True)
    except Exception:
        # Some annotation can't be evaluated (e.g. a name only imported under TYPE_CHECKING); resolve the
        # others one by one and leave the failures as strings for pydantic (or the RunContext check) to handle.
        resolved = {}
        namespace: dict[str, Any] = getattr(inspect.unwrap(target), '__globals__', {})
        annotations = {p.name: p.annotation for p in signature.parameters.values()}
        annotations['return'] = signature.return_annotation
        for key, annotation in annotations.items():
            if isinstance(annotation, str):
                try:
                    resolved[key] = eval(annotation, namespace)
                except Exception:
                    resolved[key] = annotation

    hints: dict[str, Any] = {}
    for parameter in signature.parameters.values():
        if parameter.name in resolved:
            hints[parameter.name] = resolved[parameter.name]
        elif parameter.annotation is inspect.Parameter.empty:
            hints[parameter.name] = Any
        else:
            hints[parameter.name] = parameter.annotation
    if 'return' in resolved:
        hints['return'] = resolved['return']
    elif signature.return_annotation is not inspect.Signature.empty:
        hints['return'] = signature.return_annotation
    if 'return' in hints and hints['return'] is None:
        hints['return'] = type(None)  # `-> None`, which a missing 'return' hint must not be mistaken for
    return hints


def _hints_target(function: Callable[..., Any]) -> Any:
    """The object whose annotations describe calling `function`."""
    target: object = _unwrap_partial(function)
    if inspect.isfunction(target) or inspect.ismethod(target):
        return target
    if isinstance(target, type):
        return target.__init__
    call: object = getattr(type(target), '__call__', None)  # noqa: B004 - the method itself, for its annotations
    return call if call is not None else target


def _unwrap_partial(function: Callable[..., Any]) -> Callable[..., Any]:
    while isinstance(function, functools.partial):
        function = cast('functools.partial[Any]', function).func
    return function


def _callable_name(function: Callable[..., Any]) -> str:
    target = _unwrap_partial(function)
    name = getattr(target, '__name__', None)
    return name if isinstance(name, str) else type(target).__name__


def _strip_annotated(annotation: Any) -> Any:
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _is_run_context(annotation: Any) -> bool:
    # Imported here because the run context module imports much of the package.
    from ._run_context import RunContext

    if isinstance(annotation, str):
        return _RUN_CONTEXT_STRING.match(annotation) is not None
    annotation = _strip_annotated(annotation)
    if annotation is RunContext or typing.get_origin(annotation) is RunContext:
        return True
    return isinstance(annotation, type) and issubclass(annotation, RunContext)


def is_model_like(annotation: Any) -> bool:
    """Whether a type's JSON schema is an object: a Pydantic model, dataclass, `TypedDict` or `StructuredDict`."""
    stripped: object = _strip_annotated(annotation)
    if not inspect.isclass(stripped):
        return False
    return (
        issubclass(stripped, BaseModel)
        or dataclasses.is_dataclass(stripped)
        or is_typeddict(stripped)
        or bool(getattr(stripped, '__is_model_like__', False))
    )
