"""`ToolDefinition`: how a tool is described to a model, plus its rendered Python-like signature."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Annotated, Any, Literal, TypeAlias, cast

import pydantic

__all__ = ('FunctionSignature', 'ObjectJsonSchema', 'ToolDefinition', 'ToolKind', 'ToolPartKind')

ObjectJsonSchema: TypeAlias = dict[str, Any]
"""JSON schema of an object (`{"type": "object", ...}`)."""

ToolKind: TypeAlias = Literal['function', 'output', 'external', 'unapproved']
"""How a tool call is handled: run here, end the run with output, run elsewhere, or wait for approval."""

ToolPartKind: TypeAlias = Literal['tool-search']
"""Typed call/return shapes some framework-managed tools use."""

_JSON_TO_PY = {'string': 'str', 'integer': 'int', 'number': 'float', 'boolean': 'bool', 'null': 'None'}


def _py_type(schema: dict[str, Any]) -> str:
    if 'anyOf' in schema or 'oneOf' in schema:
        options: list[dict[str, Any]] = schema.get('anyOf') or schema.get('oneOf') or []
        return ' | '.join(_py_type(option) for option in options)
    if '$ref' in schema:
        return str(schema['$ref']).rsplit('/', 1)[-1]
    if 'enum' in schema:
        return 'Literal[' + ', '.join(repr(v) for v in schema['enum']) + ']'
    kind = schema.get('type')
    if isinstance(kind, list):
        return ' | '.join(_JSON_TO_PY.get(str(k), 'Any') for k in cast('list[Any]', kind))
    if kind == 'array':
        return f'list[{_py_type(schema.get("items", {}))}]'
    if kind == 'object':
        return 'dict[str, Any]'
    return _JSON_TO_PY.get(str(kind), 'Any')


@dataclass(frozen=True)
class FunctionSignature:
    """A Python-like signature derived from a tool's JSON schemas, for prompts that show tools as code."""

    parameters: tuple[tuple[str, str, bool], ...]
    """`(name, type, required)` for each parameter."""
    return_type: str
    """The return type, `Any` when unknown."""

    @classmethod
    def from_schemas(cls, parameters: ObjectJsonSchema, return_schema: ObjectJsonSchema | None) -> FunctionSignature:
        """Build a signature from a parameters schema and an optional return schema."""
        required = set(parameters.get('required', []))
        props: dict[str, Any] = parameters.get('properties', {})
        params = tuple((name, _py_type(schema), name in required) for name, schema in props.items())
        return cls(params, _py_type(return_schema) if return_schema else 'Any')

    def render(self, body: str = '...', *, name: str, description: str | None = None) -> str:
        """Render as a function definition with the given name, docstring and body."""
        ordered = sorted(self.parameters, key=lambda p: not p[2])
        args = ', '.join(f'{n}: {t}' if req else f'{n}: {t} = None' for n, t, req in ordered)
        lines = [f'def {name}({args}) -> {self.return_type}:']
        if description:
            lines.append(f'    """{description}"""')
        lines.extend(f'    {line}' for line in body.splitlines() or ['...'])
        return '\n'.join(lines)


@dataclass(repr=False, kw_only=True)
class ToolDefinition:
    """Definition of a tool passed to a model; used for function tools and output tools alike."""

    name: str
    """The name of the tool."""
    parameters_json_schema: ObjectJsonSchema = field(default_factory=lambda: {'type': 'object', 'properties': {}})
    """The JSON schema for the tool's parameters."""
    description: str | None = None
    """The description of the tool."""
    outer_typed_dict_key: str | None = None
    """For output tools whose schema is not an object: the key wrapping the value."""
    strict: bool | None = None
    """Whether to enforce (vendor-specific) strict JSON schema validation of calls."""
    sequential: bool = False
    """Whether this tool requires a sequential/serial execution environment."""
    kind: ToolKind = 'function'
    """How calls to this tool are handled."""
    metadata: dict[str, Any] | None = None
    """Metadata set by the toolset; never sent to the model."""
    timeout: float | None = None
    """Timeout in seconds for tool execution; exceeding it sends a retry prompt to the model."""
    defer_loading: bool = False
    """Whether the tool is hidden from the model until something surfaces it (tool search)."""
    unless_native: Annotated[
        str | None,
        pydantic.Field(validation_alias=pydantic.AliasChoices('unless_native', 'prefer_native', 'prefer_builtin')),
    ] = None
    """If set, the tool is dropped from the request when the model supports the named native tool."""
    with_native: str | None = None
    """If set, the tool stays on the wire when the named native tool is supported, formatted by it."""
    tool_kind: ToolPartKind | None = None
    """Discriminator for typed cross-provider call/return shapes (e.g. `'tool-search'`)."""
    return_schema: ObjectJsonSchema | None = None
    """The JSON schema of the tool's return value."""
    include_return_schema: bool | None = None
    """Whether to send `return_schema` to the model (`None`: only with `IncludeToolReturnSchemas`)."""
    capability_id: str | None = None
    """The id of the capability that contributed this tool, if any."""

    @cached_property
    def function_signature(self) -> FunctionSignature:
        """The Python-like signature of the tool, derived from its schemas."""
        return FunctionSignature.from_schemas(self.parameters_json_schema, self.return_schema)

    @property
    def defer(self) -> bool:
        """Whether calls to this tool are deferred (external or awaiting approval)."""
        return self.kind in ('external', 'unapproved')

    def render_signature(self, body: str = '...', **kwargs: Any) -> str:
        """Render the tool's signature as a function definition with its name and description."""
        return self.function_signature.render(body, name=self.name, description=self.description, **kwargs)

    def __repr__(self) -> str:
        defaults = ToolDefinition.__dataclass_fields__
        shown = [
            f'{name}={getattr(self, name)!r}'
            for name, f in defaults.items()
            if name in ('name', 'kind')
            or getattr(self, name) != (f.default_factory() if callable(f.default_factory) else f.default)
        ]
        return f'ToolDefinition({", ".join(shown)})'
