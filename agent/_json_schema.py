"""Rewriting JSON schemas for a provider: `JsonSchemaTransformer` walks a schema and rewrites every sub-schema.

Providers accept different subsets of JSON Schema (some refuse `$ref`, some need `additionalProperties: false`
for strict mode, ...). A model's profile names a transformer class (`ModelProfile.json_schema_transformer`), and
`Model.customize_request_parameters` runs it over every tool's parameters and the output object's schema before
the request is built.

The walk visits the root, then every nested schema (object properties, `additionalProperties`,
`patternProperties`, array `items` and `prefixItems`, `anyOf`/`oneOf` members) bottom-up, calling `transform` on
each. `$defs` are walked once each and kept, or with `prefer_inlined_defs=True` every `$ref` is replaced by its
definition, except refs that recurse, which cannot be inlined and stay as `$defs` + `$ref`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from copy import deepcopy
from typing import Any, Literal, TypeAlias, cast

from .exceptions import UserError

__all__ = ('InlineDefsJsonSchemaTransformer', 'JsonSchema', 'JsonSchemaTransformer')

JsonSchema: TypeAlias = dict[str, Any]
"""A JSON schema (or sub-schema) as a dict."""

_Node: TypeAlias = JsonSchema | bool
_DEFS_PREFIX = '#/$defs/'


def _def_key(ref: str) -> str:
    return ref.removeprefix(_DEFS_PREFIX)


class JsonSchemaTransformer(ABC):
    """Walks a JSON schema and applies `transform` to the root and every nested schema.

    Subclass it and implement `transform`; `walk()` returns the rewritten schema and never changes the one given.
    """

    def __init__(
        self,
        schema: JsonSchema,
        *,
        strict: bool | None = None,
        prefer_inlined_defs: bool = False,
        simplify_nullable_unions: bool = False,
    ) -> None:
        """Prepare a walk over `schema`.

        Args:
            schema: The schema to rewrite (left unchanged).
            strict: Whether the schema must be made fit for the provider's strict mode (`None`: not asked).
            prefer_inlined_defs: Replace each non-recursive `$ref` with its definition.
            simplify_nullable_unions: Turn `anyOf: [X, {'type': 'null'}]` into `X` with `nullable: true`
                (the OpenAPI 3.0 spelling some providers want).
        """
        self.schema = schema
        """The schema being rewritten."""
        self.strict = strict
        """Whether the result must suit the provider's strict mode; transformers may refuse or adapt features."""
        self.is_strict_compatible = True
        """Whether the result suits strict mode; `transform` sets it to `False` when it meets something that does
        not. A tool or output whose `strict` is `None` takes this value."""
        self.prefer_inlined_defs = prefer_inlined_defs
        """Whether `$ref`s are replaced by their definitions."""
        self.simplify_nullable_unions = simplify_nullable_unions
        """Whether `X | null` unions become `X` with `nullable: true`."""
        self.defs: dict[str, JsonSchema] = deepcopy(schema.get('$defs', {}))
        """The schema's `$defs`, by name."""
        self.refs_stack: list[str] = []
        """The definitions being inlined, outermost first (to notice recursion)."""
        self.recursive_refs: set[str] = set()
        """The definitions found to refer to themselves, which stay as `$ref`s."""

    @abstractmethod
    def transform(self, schema: JsonSchema) -> JsonSchema:
        """Rewrite one (sub-)schema, whose nested schemas were already transformed; return the result."""
        raise NotImplementedError

    def walk(self) -> JsonSchema:
        """Return the transformed copy of the schema."""
        root = deepcopy(self.schema)
        root.pop('$defs', None)
        handled = self._handle(root)
        assert isinstance(handled, dict)
        if not self.prefer_inlined_defs:
            if self.defs:
                handled['$defs'] = {name: self._handle(definition) for name, definition in self.defs.items()}
            return handled
        if not self.recursive_refs:
            return handled
        # Recursive definitions cannot be inlined, so the result keeps those in `$defs` and points at the root
        # through a `$ref` of its own, named after the original root ref (or title) without clashing.
        defs: dict[str, Any] = {name: self.defs[name] for name in self.recursive_refs}
        root_ref = self.schema.get('$ref')
        root_name = _def_key(root_ref) if isinstance(root_ref, str) else str(self.schema.get('title', 'root'))
        while root_ref is None and root_name in defs:
            root_name = f'{root_name}_root'
        defs[root_name] = handled
        return {'$defs': defs, '$ref': f'{_DEFS_PREFIX}{root_name}'}

    def _handle(self, node: _Node) -> _Node:
        if isinstance(node, bool):
            return node
        schema = node
        inlined = 0
        if self.prefer_inlined_defs:
            while isinstance(ref := schema.get('$ref'), str):
                name = _def_key(ref)
                if name in self.recursive_refs:
                    break
                if name in self.refs_stack:
                    self.recursive_refs.add(name)
                    break
                definition = self.defs.get(name)
                if definition is None:
                    raise UserError(f'The JSON schema refers to {ref!r}, which is not in its $defs')
                self.refs_stack.append(name)
                inlined += 1
                schema = deepcopy(definition)
        kind = schema.get('type')
        if kind == 'object':
            schema = self._handle_object(schema)
        elif kind == 'array':
            schema = self._handle_array(schema)
        elif kind is None:
            schema = self._handle_union(self._handle_union(schema, 'anyOf'), 'oneOf')
        schema = self.transform(schema)
        if inlined:
            del self.refs_stack[-inlined:]
        return schema

    def _handle_object(self, schema: JsonSchema) -> JsonSchema:
        if properties := schema.get('properties'):
            schema['properties'] = {name: self._handle(sub) for name, sub in cast(JsonSchema, properties).items()}
        additional = schema.get('additionalProperties')
        if isinstance(additional, dict):
            schema['additionalProperties'] = self._handle(cast(JsonSchema, additional))
        if (patterns := schema.get('patternProperties')) is not None:
            schema['patternProperties'] = {key: self._handle(sub) for key, sub in cast(JsonSchema, patterns).items()}
        return schema

    def _handle_array(self, schema: JsonSchema) -> JsonSchema:
        if prefix_items := schema.get('prefixItems'):
            schema['prefixItems'] = [self._handle(item) for item in cast(list[_Node], prefix_items)]
        if items := schema.get('items'):
            schema['items'] = self._handle(cast(_Node, items))
        return schema

    def _handle_union(self, schema: JsonSchema, key: Literal['anyOf', 'oneOf']) -> JsonSchema:
        if key not in schema:
            return schema
        rest = dict(schema)
        members = [self._handle(member) for member in cast(list[_Node], rest.pop(key))]
        if self.simplify_nullable_unions:
            members = _nullable(members)
        # A union of one is that schema; other keys (title, description, ...) stay on it.
        if len(members) == 1 and isinstance(members[0], dict):
            return members[0] | rest
        return {**rest, key: members}


def _nullable(members: list[_Node]) -> list[_Node]:
    """`[X, {'type': 'null'}]` becomes `[X + nullable]` (OpenAPI 3.0 style); other unions stay as they are."""
    null: _Node = {'type': 'null'}
    if len(members) != 2 or null not in members:
        return members
    other = members[0] if members[1] == null else members[1]
    if not isinstance(other, dict):
        return members
    return [{**deepcopy(other), 'nullable': True}]


class InlineDefsJsonSchemaTransformer(JsonSchemaTransformer):
    """Inlines every `$ref` (recursive ones excepted) and changes nothing else: for providers without `$ref`."""

    def __init__(self, schema: JsonSchema, *, strict: bool | None = None) -> None:
        """Prepare a walk that inlines the definitions of `schema`."""
        super().__init__(schema, strict=strict, prefer_inlined_defs=True)

    def transform(self, schema: JsonSchema) -> JsonSchema:
        """Leave the schema as it is (the inlining happens during the walk)."""
        return schema
