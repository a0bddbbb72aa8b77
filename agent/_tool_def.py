"""`ToolDefinition`: how a tool is described to a model, plus its rendered Python-like signature."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Annotated, Any, Literal, TypeAlias

import pydantic

from .function_signature import FunctionSignature

__all__ = ('FunctionSignature', 'ObjectJsonSchema', 'ToolDefinition', 'ToolKind', 'ToolPartKind')

ObjectJsonSchema: TypeAlias = dict[str, Any]
"""JSON schema of an object (`{"type": "object", ...}`)."""

ToolKind: TypeAlias = Literal['function', 'output', 'external', 'unapproved']
"""How a tool call is handled: run here, end the run with output, run elsewhere, or wait for approval."""

ToolPartKind: TypeAlias = Literal['tool-search', 'capability-load']
"""Typed call/return shapes some framework-managed tools use (tool search, capability loading)."""


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
        """The tool as a Python function signature, read from its parameter and return schemas on first use.

        The signature's name is the tool's; give the description when rendering (as `render_signature` does).
        """
        return FunctionSignature.from_schema(
            name=self.name, parameters_schema=self.parameters_json_schema, return_schema=self.return_schema
        )

    @property
    def defer(self) -> bool:
        """Whether calls to this tool are deferred (external or awaiting approval)."""
        return self.kind in ('external', 'unapproved')

    def render_signature(self, body: str = '...', **kwargs: Any) -> str:
        """The tool as a function definition with its name and description (see `FunctionSignature.render`)."""
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
