"""Turning what the model produced (tool arguments or response text) into a run's output value.

A processor owns one output (a type or an output function): the JSON schema the model is asked to follow, a
validator for what comes back, and the call of the output function, if any. Plain types that are not objects are
wrapped in a one-key object (`{'response': ...}`), because tool arguments and JSON schema outputs must be
objects. Several outputs in one structured-text output (`NativeOutput([A, B])`) are offered as one object whose
`result` holds a `kind` naming the chosen output and its `data`.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import pydantic
from pydantic import Json, TypeAdapter
from typing_extensions import TypedDict

from ._function_schema import FunctionSchema, GenerateToolJsonSchema, function_schema, is_model_like
from .exceptions import UserError
from .models._request_parameters import OutputObjectDefinition

if TYPE_CHECKING:
    from ._run_context import RunContext

__all__ = (
    'ObjectOutputProcessor',
    'StructuredOutputProcessor',
    'TextFunctionProcessor',
    'UnionOutputProcessor',
    'build_structured_processor',
    'strip_markdown_fences',
    'type_name',
)

# Pyright only understands `TypedDict(...)` with a literal dict of fields; these are built at runtime.
_make_typed_dict: Any = TypedDict

_FENCED = re.compile(r'```(?:[\w+-]*)[ \t]*\n?(.*?)```', re.DOTALL)


def strip_markdown_fences(text: str) -> str:
    """The JSON inside a Markdown code fence, if the model wrapped its answer in one; else `text`."""
    if (match := _FENCED.search(text)) is not None:
        return match.group(1).strip()
    return text


def type_name(output: Any) -> str:
    """A name for an output type or function, usable in a tool name."""
    name = getattr(output, '__name__', None) or str(output)
    return re.sub(r'[^A-Za-z0-9_-]', '_', name)


def is_output_function(output: Any) -> bool:
    """Whether `output` is an output function rather than a type."""
    return inspect.isfunction(output) or inspect.ismethod(output)


def _resolved(function: Any, parameter: inspect.Parameter) -> Any:
    """The parameter's annotation, evaluated where it is a string (`from __future__ import annotations`)."""
    try:
        return typing.get_type_hints(function).get(parameter.name, parameter.annotation)
    except Exception:  # an annotation naming something only imported for type checking stays as written
        return parameter.annotation


class ObjectOutputProcessor:
    """One output type or output function, produced as a JSON object."""

    object_def: OutputObjectDefinition
    """The schema the model is asked for, with its name and description."""
    outer_typed_dict_key: str | None = None
    """The key a non-object type is wrapped under (`'response'`), or `None`."""
    output_type: Any
    """The type the model produces: the output type, or the output function's argument type."""

    def __init__(
        self, output: Any, *, name: str | None = None, description: str | None = None, strict: bool | None = None
    ) -> None:
        self._function: FunctionSchema | None = None
        self.output_type = output
        if is_output_function(output):
            self._function = function_schema(output, GenerateToolJsonSchema)
            self._validator: Any = self._function.validator
            json_schema = dict(self._function.json_schema)
            if self._function.description:
                json_schema['description'] = self._function.description
            params = [p for p in inspect.signature(output).parameters.values()]
            value_params = params[1:] if self._function.takes_ctx else params
            self.output_type = _resolved(output, value_params[0]) if len(value_params) == 1 else dict[str, Any]
        elif is_model_like(output):
            adapter: TypeAdapter[Any] = TypeAdapter(output)
            self._validator = adapter.validator
            json_schema = _object_json_schema(adapter.json_schema(schema_generator=GenerateToolJsonSchema))
        else:
            self.outer_typed_dict_key = 'response'
            wrapper_name = f'{type_name(output)}Response'
            schema_type = _make_typed_dict(wrapper_name, {'response': output})
            # Some models send the value as a JSON string instead of the value itself; accept both.
            lenient = _make_typed_dict(wrapper_name, {'response': output | Json[output]})
            self._validator = TypeAdapter[Any](lenient).validator
            json_schema = TypeAdapter[Any](schema_type).json_schema(schema_generator=GenerateToolJsonSchema)
            # The wrapper's title says nothing the model can use.
            json_schema.pop('title', None)

        name = name or json_schema.get('title') or getattr(output, '__name__', None)
        if own := json_schema.pop('description', None):
            description = own if description is None else f'{description}. {own}'
        self.object_def = OutputObjectDefinition(
            json_schema=json_schema, name=name, description=description, strict=strict
        )

    @property
    def has_function(self) -> bool:
        """Whether an output function is called on the validated value."""
        return self._function is not None

    def validate(self, data: str | dict[str, Any] | None, *, allow_partial: bool = False, context: Any = None) -> Any:
        """Validate tool arguments or response JSON; the result is ready for `call`.

        Raises:
            pydantic.ValidationError: if the data is not valid JSON or does not match the schema.
        """
        partial: Any = 'trailing-strings' if allow_partial else 'off'
        if isinstance(data, str):
            return self._validator.validate_json(data or '{}', allow_partial=partial, context=context)
        return self._validator.validate_python(data or {}, allow_partial=partial, context=context)

    def unwrap(self, validated: Any) -> Any:
        """The value the model was asked for, from what `validate` returned (before any output function)."""
        if self.outer_typed_dict_key is not None:
            return validated[self.outer_typed_dict_key]
        if self._function is not None and (key := self._function.single_field_name) is not None:
            return cast('dict[str, Any]', validated).get(key) if isinstance(validated, dict) else None
        return validated

    def rewrap(self, value: Any) -> Any:
        """The inverse of `unwrap`: what `validate` would have returned for the value the model was asked for.

        Output hooks see (and may replace) the unwrapped value; this puts it back into the shape `call` takes.
        """
        if self.outer_typed_dict_key is not None:
            return {self.outer_typed_dict_key: value}
        if self._function is not None and (key := self._function.single_field_name) is not None:
            return {key: value}
        return value

    def accepts(self, value: Any) -> bool:
        """Whether `value` has the shape `rewrap` expects: an instance of the output type (its origin for a generic).

        For an output function that is the type of its one argument, or `dict[str, Any]` for several.
        """
        try:
            return isinstance(value, self.output_type)
        except TypeError:  # a parametrised generic such as `list[Bar]`
            origin = typing.get_origin(self.output_type)
            return origin is not None and isinstance(value, origin)

    @property
    def function_name(self) -> str | None:
        """The output function's name, if there is one."""
        return getattr(self._function.function, '__name__', None) if self._function is not None else None

    async def call(self, validated: Any, ctx: RunContext[Any]) -> Any:
        """The output: the validated value, or what the output function returns for it (awaited if async).

        Raises:
            ModelRetry: if the output function asks the model to try again.
        """
        if self._function is not None:
            return await self._function.call(validated, ctx)
        return self.unwrap(validated)


class UnionOutputProcessor:
    """Several outputs offered as one JSON object: `{'result': {'kind': <output name>, 'data': {...}}}`."""

    object_def: OutputObjectDefinition
    """The combined schema."""

    def __init__(
        self, outputs: Sequence[Any], *, name: str | None = None, description: str | None = None, strict: bool | None
    ) -> None:
        self._processors: dict[str, ObjectOutputProcessor] = {}
        choices: list[dict[str, Any]] = []
        all_defs: dict[str, Any] = {}
        for output in outputs:
            processor = ObjectOutputProcessor(output, strict=strict)
            key = base = processor.object_def.name or type_name(output)
            suffix = 1
            while key in self._processors:
                suffix += 1
                key = f'{base}_{suffix}'
            self._processors[key] = processor
            data = dict(processor.object_def.json_schema)
            all_defs.update(data.pop('$defs', {}))
            data.pop('title', None)
            choice: dict[str, Any] = {
                'type': 'object',
                'properties': {'kind': {'type': 'string', 'const': key}, 'data': data},
                'required': ['kind', 'data'],
                'additionalProperties': False,
                'title': key,
            }
            if processor.object_def.description:
                choice['description'] = processor.object_def.description
            choices.append(choice)
        json_schema: dict[str, Any] = {
            'type': 'object',
            'properties': {'result': {'anyOf': choices}},
            'required': ['result'],
            'additionalProperties': False,
        }
        if all_defs:
            json_schema['$defs'] = all_defs
        self.object_def = OutputObjectDefinition(
            json_schema=json_schema, name=name, description=description, strict=strict
        )

    @property
    def has_function(self) -> bool:
        """Whether any of the outputs is an output function."""
        return any(p.has_function for p in self._processors.values())

    def validate(
        self, data: str | dict[str, Any] | None, *, allow_partial: bool = False, context: Any = None
    ) -> tuple[str, Any]:
        """Validate the envelope and the chosen output's data; returns `(kind, validated data)`.

        Raises:
            pydantic.ValidationError: if the envelope or the data do not match.
        """
        envelope = _ENVELOPE.validate_json(data or '{}') if isinstance(data, str) else _ENVELOPE.validate_python(data)
        result = envelope['result']
        kind = result['kind']
        processor = self._processors.get(kind)
        if processor is None:
            raise pydantic.ValidationError.from_exception_data(
                'UnionOutput',
                [
                    {
                        'type': 'literal_error',
                        'loc': ('result', 'kind'),
                        'input': kind,
                        'ctx': {'expected': ', '.join(repr(k) for k in self._processors)},
                    }
                ],
            )
        return kind, processor.validate(result['data'], allow_partial=allow_partial, context=context)

    def unwrap(self, validated: tuple[str, Any]) -> Any:
        """The value the model was asked for."""
        kind, data = validated
        return self._processors[kind].unwrap(data)

    def kind_for(self, value: Any, chosen: str | None = None) -> str | None:
        """The output `value` belongs to: `chosen` (validation's pick) if it still fits, else the first that fits.

        `None` when it fits none: an output hook may replace the value with anything, and such a value is kept as
        it is rather than handed to an output function that cannot take it.
        """
        if chosen is not None and self._processors[chosen].accepts(value):
            return chosen
        return next((kind for kind, processor in self._processors.items() if processor.accepts(value)), None)

    def rewrap(self, kind: str, value: Any) -> tuple[str, Any]:
        """The inverse of `unwrap` for the output named `kind`."""
        return kind, self._processors[kind].rewrap(value)

    async def call(self, validated: tuple[str, Any], ctx: RunContext[Any]) -> Any:
        """The output of the chosen output type or function."""
        kind, data = validated
        return await self._processors[kind].call(data, ctx)


class _EnvelopeResult(TypedDict):
    kind: str
    data: dict[str, Any]


class _Envelope(TypedDict):
    result: _EnvelopeResult


_ENVELOPE: TypeAdapter[_Envelope] = TypeAdapter(_Envelope)

StructuredOutputProcessor = ObjectOutputProcessor | UnionOutputProcessor
"""A processor for structured output: one output, or a choice between several."""


def build_structured_processor(
    outputs: Sequence[Any], *, name: str | None = None, description: str | None = None, strict: bool | None = None
) -> StructuredOutputProcessor:
    """The processor for the outputs of a `NativeOutput` / `PromptedOutput`."""
    if len(outputs) == 1:
        return ObjectOutputProcessor(outputs[0], name=name, description=description, strict=strict)
    return UnionOutputProcessor(outputs, name=name, description=description, strict=strict)


class TextFunctionProcessor:
    """A `TextOutput` function: called with the response text."""

    def __init__(self, function: Any) -> None:
        self._function = function_schema(function, GenerateToolJsonSchema)
        properties: dict[str, Any] = self._function.json_schema.get('properties', {})
        if len(properties) != 1 or next(iter(properties.values())).get('type') != 'string':
            raise UserError(
                'TextOutput must take a function taking a single `str` argument (after an optional RunContext)'
            )
        self._argument = next(iter(properties))

    @property
    def function_name(self) -> str | None:
        """The function's name."""
        return getattr(self._function.function, '__name__', None)

    async def call(self, text: str, ctx: RunContext[Any]) -> Any:
        """The function's result for `text` (awaited if async).

        Raises:
            ModelRetry: if the function asks the model to try again.
        """
        return await self._function.call({self._argument: text}, ctx)


def _object_json_schema(json_schema: dict[str, Any]) -> dict[str, Any]:
    """An object schema: a top-level reference (a recursive model) is replaced by its definition."""
    ref = json_schema.get('$ref')
    defs: dict[str, Any] = json_schema.get('$defs', {})
    if isinstance(ref, str) and ref.startswith('#/$defs/'):
        target = dict(defs.get(ref.removeprefix('#/$defs/'), {}))
        target['$defs'] = defs
        return target
    return json_schema


def inline_defs(json_schema: dict[str, Any]) -> dict[str, Any]:
    """`json_schema` with its `$defs` references replaced by the definitions.

    Raises:
        UserError: if a definition refers to itself (recursive schemas can't be inlined).
    """
    defs: dict[str, Any] = json_schema.get('$defs', {})

    def resolve(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [resolve(item, seen) for item in cast('list[Any]', node)]
        if not isinstance(node, dict):
            return node
        mapping = cast('dict[str, Any]', node)
        ref = mapping.get('$ref')
        if isinstance(ref, str) and ref.startswith('#/$defs/'):
            key = ref.removeprefix('#/$defs/')
            if key in seen:
                raise UserError(
                    '`StructuredDict` does not currently support recursive `$ref`s and `$defs`. '
                    f'See https://github.com/pydantic/pydantic/issues/12145 for more information. ({key!r} refers '
                    'to itself.)'
                )
            rest = {k: v for k, v in mapping.items() if k != '$ref'}
            return {**resolve(defs.get(key, {}), (*seen, key)), **resolve(rest, seen)}
        return {k: resolve(v, seen) for k, v in mapping.items() if k != '$defs'}

    return resolve(json_schema, ())
