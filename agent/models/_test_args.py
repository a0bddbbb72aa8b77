"""Deterministic example values for a JSON schema, used by `TestModel` to call tools with valid arguments.

Values are derived from a seed and a counter that advances with every scalar produced, so the fields of one
object get different values ('a', 'b', ... for strings; seed, seed + 1, ... for numbers) and a different seed
gives different values. The generator understands the schemas pydantic produces: `$ref`/`$defs`, unions
(`anyOf`/`oneOf`, discriminated ones included), `allOf`, enums and constants, numeric and length bounds and
the common string formats. Regex `pattern`s are not interpreted.
"""

from __future__ import annotations

import base64
import math
from typing import Any, cast

__all__ = ('generate_example', 'generate_tool_args')

_MAX_DEPTH = 8
"""Below this nesting depth only what is required is generated, so recursive schemas terminate."""


def generate_example(schema: dict[str, Any], *, seed: int = 0) -> Any:
    """An example value valid against `schema`, deterministic in `seed`."""
    return _Generator(schema, seed).value(schema, 0)


def generate_tool_args(parameters_json_schema: dict[str, Any], *, seed: int = 0) -> dict[str, Any]:
    """Example arguments for a tool with the given (object) parameters schema."""
    value = generate_example(parameters_json_schema, seed=seed)
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def _letters(n: int) -> str:
    """'a', 'b', ..., 'z', 'ba', 'bb', ...: a short distinct string for every non-negative integer."""
    text = ''
    while True:
        n, rest = divmod(n, 26)
        text = chr(ord('a') + rest) + text
        if n == 0:
            return text


class _Generator:
    def __init__(self, root: dict[str, Any], seed: int) -> None:
        self.defs: dict[str, Any] = {**root.get('definitions', {}), **root.get('$defs', {})}
        self.seed = seed
        self.counter = seed

    def next_count(self) -> int:
        count = self.counter
        self.counter += 1
        return count

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        """Inline `$ref` and merge `allOf`, keeping the referring schema's own keywords."""
        while '$ref' in schema:
            name = str(schema['$ref']).rsplit('/', 1)[-1]
            target: dict[str, Any] = self.defs.get(name, {})
            schema = {**target, **{k: v for k, v in schema.items() if k != '$ref'}}
        if 'allOf' in schema:
            merged: dict[str, Any] = {k: v for k, v in schema.items() if k != 'allOf'}
            for sub in cast(list[dict[str, Any]], schema['allOf']):
                sub = self.resolve(sub)
                properties = {**merged.get('properties', {}), **sub.get('properties', {})}
                required = [*merged.get('required', []), *sub.get('required', [])]
                merged = {**sub, **merged, 'properties': properties, 'required': required}
                if not properties:
                    del merged['properties']
            schema = merged
        return schema

    def value(self, schema: dict[str, Any], depth: int) -> Any:
        schema = self.resolve(schema)
        if 'const' in schema:
            return schema['const']
        if 'enum' in schema:
            options: list[Any] = schema['enum']
            return options[self.next_count() % len(options)]
        for key in ('anyOf', 'oneOf'):
            if key in schema:
                return self.value(self.choose(cast(list[dict[str, Any]], schema[key]), depth), depth + 1)
        kind = schema.get('type')
        if isinstance(kind, list):
            kinds = sorted(cast(list[str], kind), key=lambda k: k == 'null')
            kind = kinds[0] if depth >= _MAX_DEPTH or self.seed % 2 == 0 else kinds[self.seed % len(kinds)]
        if kind is None:
            if 'properties' in schema or 'additionalProperties' in schema:
                kind = 'object'
            elif 'items' in schema or 'prefixItems' in schema:
                kind = 'array'
            elif 'default' in schema:
                return schema['default']
            else:
                kind = 'string'
        return self.typed_value(str(kind), schema, depth)

    def choose(self, options: list[dict[str, Any]], depth: int) -> dict[str, Any]:
        """Pick a union member: a non-null one on even seeds, rotating with the seed otherwise.

        Members constrained by a regex `pattern` are avoided when there is another choice, and so are
        strings when a number is allowed too.
        """
        usable = [o for o in options if 'pattern' not in self.resolve(o)] or options
        kinds = {self.resolve(o).get('type') for o in usable}
        if kinds & {'number', 'integer'} and 'string' in kinds:
            # A number-or-string union usually means a number that may arrive as text (e.g. Decimal).
            usable = [o for o in usable if self.resolve(o).get('type') != 'string']
        ordered = sorted(usable, key=lambda o: self.resolve(o).get('type') == 'null')
        if depth >= _MAX_DEPTH:
            nulls = [o for o in ordered if self.resolve(o).get('type') == 'null']
            return nulls[0] if nulls else ordered[0]
        return ordered[0] if self.seed % 2 == 0 else ordered[self.seed % len(ordered)]

    def typed_value(self, kind: str, schema: dict[str, Any], depth: int) -> Any:
        if kind == 'null':
            return None
        if kind == 'boolean':
            return self.next_count() % 2 == 0
        if kind == 'integer':
            return self.integer(schema)
        if kind == 'number':
            return self.number(schema)
        if kind == 'array':
            return self.array(schema, depth)
        if kind == 'object':
            return self.object(schema, depth)
        return self.string(schema)

    def integer(self, schema: dict[str, Any]) -> int:
        low = -math.inf
        high = math.inf
        if 'minimum' in schema:
            low = math.ceil(schema['minimum'])
        if 'exclusiveMinimum' in schema:
            low = max(low, math.floor(schema['exclusiveMinimum']) + 1)
        if 'maximum' in schema:
            high = math.floor(schema['maximum'])
        if 'exclusiveMaximum' in schema:
            high = min(high, math.ceil(schema['exclusiveMaximum']) - 1)
        value = self.next_count()
        if value < low or value > high:
            value = int(low) if low != -math.inf else int(high)
        multiple = schema.get('multipleOf')
        if isinstance(multiple, int) and multiple > 0 and value % multiple:
            value += multiple - value % multiple
            if value > high:
                value -= multiple
        return value

    def number(self, schema: dict[str, Any]) -> float:
        low = float(schema.get('minimum', schema.get('exclusiveMinimum', -math.inf)))
        high = float(schema.get('maximum', schema.get('exclusiveMaximum', math.inf)))
        value = self.next_count() + 0.5
        exclusive_low = 'exclusiveMinimum' in schema
        exclusive_high = 'exclusiveMaximum' in schema
        if value < low or value > high or (exclusive_low and value == low) or (exclusive_high and value == high):
            if math.isfinite(low) and math.isfinite(high):
                value = (low + high) / 2
            elif math.isfinite(low):
                value = low + 1 if exclusive_low else low
            else:
                value = high - 1 if exclusive_high else high
        multiple = schema.get('multipleOf')
        if isinstance(multiple, int | float) and multiple > 0:
            value = math.ceil(value / multiple) * multiple
        return value

    def string(self, schema: dict[str, Any]) -> str:
        count = self.next_count()
        text = _formatted(schema.get('format'), count)
        if text is None:
            text = _letters(count)
            min_length: int = schema.get('minLength', 0)
            if len(text) < min_length:
                text += 'a' * (min_length - len(text))
            if 'maxLength' in schema:
                text = text[: schema['maxLength']]
        return text

    def array(self, schema: dict[str, Any], depth: int) -> list[Any]:
        prefix = cast(list[dict[str, Any]], schema.get('prefixItems', []))
        values = [self.value(item, depth + 1) for item in prefix]
        items = schema.get('items', {} if not prefix else False)
        if not isinstance(items, dict):
            return values
        min_items: int = schema.get('minItems', 0)
        max_items: int | None = schema.get('maxItems')
        target = max(min_items, len(values) + (0 if depth >= _MAX_DEPTH else 1))
        if max_items is not None:
            target = min(target, max_items)
        unique = bool(schema.get('uniqueItems'))
        attempts = 0
        while len(values) < target and attempts < target * 4:
            attempts += 1
            item = self.value(cast(dict[str, Any], items), depth + 1)
            if not (unique and item in values):
                values.append(item)
        return values

    def object(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        properties = cast(dict[str, dict[str, Any]], schema.get('properties', {}))
        required = set(cast(list[str], schema.get('required', [])))
        include_optional = self.seed % 2 == 0 and depth < _MAX_DEPTH
        result: dict[str, Any] = {}
        for name, prop in properties.items():
            # Constants are always included: they may be a union's discriminator, which must be present.
            if name in required or include_optional or 'const' in self.resolve(prop):
                result[name] = self.value(prop, depth + 1)
        extra = schema.get('additionalProperties')
        min_properties: int = schema.get('minProperties', 0)
        if not properties and isinstance(extra, dict) and depth < _MAX_DEPTH:
            key_schema = cast(dict[str, Any], schema.get('propertyNames', {'type': 'string'}))
            for _ in range(max(min_properties, 1)):
                result[str(self.value(key_schema, depth + 1))] = self.value(cast(dict[str, Any], extra), depth + 1)
        return result


def _formatted(format_: str | None, count: int) -> str | None:
    """A string in the given format, or `None` for formats without special syntax."""
    if format_ is None:
        return None
    if format_ == 'date':
        return f'2024-01-{count % 28 + 1:02d}'
    if format_ == 'date-time':
        return f'2024-01-{count % 28 + 1:02d}T12:00:00Z'
    if format_ == 'time':
        return f'12:{count % 60:02d}:00'
    if format_ == 'duration':
        return f'PT{count + 1}S'
    if format_.startswith('uuid'):
        version = format_.removeprefix('uuid') or '4'
        return f'{count:08x}-0000-{version}000-8000-000000000000'
    if format_ == 'base64':
        return base64.b64encode(_letters(count).encode()).decode()
    if format_ == 'email':
        return f'{_letters(count)}@example.com'
    if format_ in ('uri', 'url', 'iri'):
        return f'https://example.com/{_letters(count)}'
    if format_ == 'ipv4':
        return f'192.0.2.{count % 256}'
    if format_ == 'ipv6':
        return f'2001:db8::{count % 65536:x}'
    return None
