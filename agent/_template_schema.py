"""Checking a parsed template against the JSON schema of the deps it will be rendered with.

`TemplateStr(..., deps_type=...)` and `TemplateStr(..., deps_schema=...)` use this so that a misspelt
variable fails when the template is created (typically when an agent is built from a spec) instead of in
the middle of a run. The check only rejects what can never resolve: a name that no enclosing object
schema declares. Wherever the schema leaves a value open (`additionalProperties`, unions, `Any`), anything
goes, and rendering still reports what is missing at run time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NoReturn, cast

import pydantic

from ._template_syntax import Block, Node, Var
from .exceptions import UserError

__all__ = ('check_template', 'deps_type_schema')

_Schema = dict[str, Any]


def deps_type_schema(deps_type: Any) -> _Schema | None:
    """The JSON schema of a deps type, or `None` when it has none (e.g. arbitrary classes), so it is not checked."""
    if deps_type is None or deps_type is type(None) or deps_type is Any:
        return None
    try:
        return pydantic.TypeAdapter(deps_type).json_schema(mode='serialization')
    except (pydantic.PydanticSchemaGenerationError, pydantic.PydanticInvalidForJsonSchema, TypeError):
        return None


def check_template(nodes: list[Node], source: str, schema: _Schema) -> None:
    """Raise `UserError` for the first variable of `nodes` that `schema` says can never be found.

    Raises:
        UserError: naming the variable and the template.
    """
    defs = {**schema.get('definitions', {}), **schema.get('$defs', {})}
    checker = _Checker(source, cast(dict[str, _Schema], defs))
    checker.check(nodes, [checker.resolve(schema)])


@dataclass
class _Checker:
    source: str
    defs: dict[str, _Schema]

    def check(self, nodes: list[Node], scopes: list[_Schema | None]) -> None:
        for node in nodes:
            if isinstance(node, Var):
                self.lookup(node.path, scopes)
            elif isinstance(node, Block):
                target = self.lookup(node.path, scopes)
                inner = [*scopes, self.element(target)] if node.kind == 'each' else scopes
                self.check(node.body, inner)
                self.check(node.otherwise, scopes)

    def resolve(self, schema: Any) -> _Schema | None:
        """Follow `$ref`s and optional (`X | None`) unions; `None` means the schema says nothing useful."""
        if not isinstance(schema, Mapping):
            return None
        schema = cast(_Schema, schema)
        ref = schema.get('$ref')
        if isinstance(ref, str):
            return self.resolve(self.defs.get(ref.rsplit('/', 1)[-1]))
        for key in ('anyOf', 'oneOf', 'allOf'):
            options = schema.get(key)
            if isinstance(options, list):
                real = [option for option in cast(list[Any], options) if not _is_null(option)]
                return self.resolve(real[0]) if len(real) == 1 else None
        return schema

    def member(self, schema: _Schema | None, name: str) -> tuple[bool, _Schema | None]:
        """Look `name` up in an object schema: (found or unknown, its schema or `None` when unknown)."""
        if schema is None:
            return True, None
        properties = schema.get('properties')
        if isinstance(properties, Mapping) and name in properties:
            return True, self.resolve(cast(_Schema, properties)[name])
        extra = schema.get('additionalProperties')
        if extra is False or (extra is None and isinstance(properties, Mapping)):
            return False, None
        if name.isdigit() and schema.get('type') == 'array':
            return True, self.resolve(schema.get('items'))
        return True, self.resolve(extra)

    def lookup(self, path: str, scopes: list[_Schema | None]) -> _Schema | None:
        head, *rest = path.split('.')
        if head.startswith('@'):
            return None
        if head == 'this':
            current = scopes[-1]
        else:
            # Like rendering: the innermost scope that can have the name wins.
            for scope in reversed(scopes):
                found, current = self.member(scope, head)
                if found:
                    break
            else:
                self.fail(path)
        for segment in rest:
            found, current = self.member(current, segment)
            if not found:
                self.fail(path)
        return current

    def element(self, schema: _Schema | None) -> _Schema | None:
        """The schema of what an `#each` over a value of `schema` iterates over."""
        if schema is None:
            return None
        if schema.get('type') == 'array':
            return self.resolve(schema.get('items'))
        return self.resolve(schema.get('additionalProperties'))

    def fail(self, path: str) -> NoReturn:
        raise UserError(
            f'Template variable {path!r} is not defined by the dependencies schema (template: {self.source!r}).'
        )


def _is_null(schema: Any) -> bool:
    return isinstance(schema, Mapping) and cast(_Schema, schema).get('type') == 'null'
