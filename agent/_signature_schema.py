"""Reading JSON schemas (as tools describe their arguments and results) into signature nodes.

An object schema with properties becomes a named `TypeSignature`: its `title` when that is a Python identifier
(pydantic gives models and TypedDicts their class name), the `$defs` key for a definition, else a name built
from the tool's name and the path to the object (`get_user` + `home.address` -> `GetUserHomeAddress`). Each
reader keeps the types it built by name, so a `$ref` used twice, or a recursive one, is one node.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, cast

from ._signature_types import (
    FunctionParam,
    GenericTypeExpr,
    LiteralTypeExpr,
    SimpleTypeExpr,
    SimpleTypeName,
    TypeExpr,
    TypeFieldSignature,
    TypeSignature,
    UnionTypeExpr,
)

__all__ = ('SchemaReader', 'type_name_for_path')

_SIMPLE: dict[str, SimpleTypeName] = {
    'string': 'str',
    'integer': 'int',
    'number': 'float',
    'boolean': 'bool',
    'null': 'None',
}

ANY = SimpleTypeExpr('Any')
NONE = SimpleTypeExpr('None')


def _pascal(word: str) -> str:
    pascal = ''.join(part.capitalize() for part in re.split(r'[^a-zA-Z0-9]+', word) if part)
    # A class name cannot start with a digit (tool names such as `123_tool` can).
    return f'_{pascal}' if pascal[:1].isdigit() else pascal


def type_name_for_path(tool_name: str, path: str) -> str:
    """The class name of an untitled object found at `path` (dot-separated) in `tool_name`'s schema."""
    return ''.join(_pascal(part) for part in [tool_name, *path.split('.')] if part)


def _is_object_with_properties(schema: dict[str, Any]) -> bool:
    return schema.get('type') == 'object' and 'properties' in schema


def _allows_null(schema: dict[str, Any]) -> bool:
    kind = schema.get('type')
    if isinstance(kind, list) and 'null' in kind:
        return True
    options = cast('list[dict[str, Any]]', schema.get('anyOf') or schema.get('oneOf') or [])
    return any(option.get('type') == 'null' for option in options)


@dataclass
class SchemaReader:
    """Reads one schema (with its own `$defs`) of one tool into type expressions."""

    tool_name: str
    """The tool's name, for the names of untitled object types."""
    defs: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    """The schema's `$defs`."""
    types: dict[str, TypeSignature] = field(default_factory=dict[str, TypeSignature])
    """The object types built so far, by name, in the order they were started."""

    @classmethod
    def for_schema(cls, tool_name: str, schema: dict[str, Any]) -> SchemaReader:
        """A reader for `schema`, with the object types of its `$defs` already built (in their order)."""
        reader = cls(tool_name, dict(schema.get('$defs') or {}))
        for name, definition in reader.defs.items():
            if _is_object_with_properties(definition) and name not in reader.types:
                reader._build_type(name, definition, name)
        return reader

    def params(self, schema: dict[str, Any]) -> dict[str, FunctionParam]:
        """The parameters of an object schema: required ones first, then those with defaults."""
        properties = cast('dict[str, dict[str, Any]]', schema.get('properties') or {})
        required = set(schema.get('required') or [])
        first: dict[str, FunctionParam] = {}
        rest: dict[str, FunctionParam] = {}
        for name, prop in properties.items():
            expr = self.read(prop, name)
            if 'default' in prop:
                rest[name] = FunctionParam(name=name, type=expr, default=repr(prop['default']))
            elif name in required:
                first[name] = FunctionParam(name=name, type=expr)
            else:
                # Optional without a default: the function receives None when the model leaves it out.
                expr = expr if _allows_null(prop) else UnionTypeExpr(members=[expr, NONE])
                rest[name] = FunctionParam(name=name, type=expr, default='None')
        return {**first, **rest}

    def read(self, schema: dict[str, Any], path: str) -> TypeExpr:
        """The type expression of `schema`, found at `path` (which names untitled objects)."""
        if '$ref' in schema:
            return self._ref(str(schema['$ref']).rsplit('/', 1)[-1], path)
        for key in ('anyOf', 'oneOf'):
            if key in schema:
                return self._union(cast('list[dict[str, Any]]', schema[key]), path)
        if 'allOf' in schema:
            parts = cast('list[dict[str, Any]]', schema['allOf'])
            # An intersection of several schemas has no Python spelling.
            return self.read(parts[0], path) if len(parts) == 1 else ANY
        if 'const' in schema:
            return LiteralTypeExpr([schema['const']])
        if 'enum' in schema:
            return LiteralTypeExpr(list(schema['enum']))
        kind = schema.get('type')
        if isinstance(kind, list):
            return self._type_list(cast('list[str]', kind), schema, path)
        return self._typed(kind, schema, path)

    def _ref(self, name: str, path: str) -> TypeExpr:
        if name not in self.types and name in self.defs and _is_object_with_properties(self.defs[name]):
            self._build_type(name, self.defs[name], path)
        # A definition that is not an object (an enum, an alias) is shown by its name, without a class.
        return self.types.get(name) or TypeSignature(name=name)

    def _union(self, options: list[dict[str, Any]], path: str) -> TypeExpr:
        members: list[TypeExpr] = []
        shown: set[str] = set()
        nullable = False
        for option in options:
            if option.get('type') == 'null':
                nullable = True
                continue
            expr = self.read(option, path)
            if str(expr) not in shown:
                shown.add(str(expr))
                members.append(expr)
        if nullable:
            members.append(NONE)
        return members[0] if len(members) == 1 else UnionTypeExpr(members=members)

    def _type_list(self, kinds: list[str], schema: dict[str, Any], path: str) -> TypeExpr:
        if 'object' in kinds and 'properties' in schema:
            expr = self._typed('object', schema, path)
            return UnionTypeExpr(members=[expr, NONE]) if 'null' in kinds else expr
        # `None` goes last, as in `str | None`, wherever the schema lists it.
        ordered = [kind for kind in kinds if kind != 'null'] + [kind for kind in kinds if kind == 'null']
        members: list[TypeExpr] = [SimpleTypeExpr(_SIMPLE.get(kind, 'Any')) for kind in ordered]
        if not members:
            return ANY
        return members[0] if len(members) == 1 else UnionTypeExpr(members=members)

    def _typed(self, kind: Any, schema: dict[str, Any], path: str) -> TypeExpr:
        if isinstance(kind, str) and kind in _SIMPLE:
            return SimpleTypeExpr(_SIMPLE[kind])
        if kind == 'array':
            return self._array(schema.get('items'), path)
        if kind == 'object':
            return self._object(schema, path)
        return ANY

    def _array(self, items: Any, path: str) -> TypeExpr:
        if isinstance(items, list):
            tuple_items = cast('list[dict[str, Any]]', items)
            return GenericTypeExpr('tuple', [self.read(item, f'{path}.{i}') for i, item in enumerate(tuple_items)])
        if items:
            return GenericTypeExpr('list', [self.read(cast('dict[str, Any]', items), f'{path}Item')])
        return GenericTypeExpr('list', [ANY])

    def _object(self, schema: dict[str, Any], path: str) -> TypeExpr:
        if 'properties' in schema:
            title = schema.get('title')
            titled = isinstance(title, str) and title.isidentifier()
            name = cast(str, title) if titled else type_name_for_path(self.tool_name, path)
            # A name already taken (by a `$defs` entry, or the same title seen before) refers to that type.
            return self.types.get(name) or self._build_type(name, schema, path)
        values = schema.get('additionalProperties')
        value = self.read(cast('dict[str, Any]', values), f'{path}Value') if isinstance(values, dict) else ANY
        return GenericTypeExpr('dict', [SimpleTypeExpr('str'), value])

    def _build_type(self, name: str, schema: dict[str, Any], path: str) -> TypeSignature:
        # Registered before its fields are read, so a field referring back to it (a tree) finds it.
        built = TypeSignature(name=name, description=schema.get('description') or None)
        self.types[name] = built
        required = set(schema.get('required') or [])
        for key, prop in cast('dict[str, dict[str, Any]]', schema.get('properties') or {}).items():
            built.fields[key] = TypeFieldSignature(
                name=key,
                type=self.read(prop, f'{path}.{key}' if path else key),
                required=key in required,
                description=prop.get('description') or None,
            )
        return built
