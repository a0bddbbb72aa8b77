"""Deterministic example values for a JSON schema, used by `TestModel` to call tools.

The values are the ones Pydantic AI's `TestModel` produces, so a ported snapshot test sees the same tool
arguments: the *minimal* data for the schema, derived from one seed shared by every field.

- only required properties are generated; an object with `additionalProperties` gets one extra key,
  `'additionalProperty'`;
- `const` wins, then `enum[seed % n]`, then `examples[seed % n]`, then `$ref`, then `anyOf[seed % n]`;
- strings are a short run of characters chosen by the seed (`'a'` for seed 0, `'b'` for 1, ...), repeated to
  `minLength`; `format: date` gives 2024-01-01 plus `seed` days;
- integers are `seed`, shifted into `minimum`/`maximum`; numbers the same as floats; booleans `seed % 2 == 1`;
- arrays hold their `prefixItems`, then items up to `minItems` (or one item); each item of a `uniqueItems`
  array advances the seed for everything generated after it.

Where those rules would give a value the schema rejects, a valid one is produced instead (this is where we go
beyond Pydantic AI, whose test would fail validation there anyway): `oneOf` and `allOf`, a discriminated
union's tag, `type` lists, `propertyNames`, string formats other than `date`, numbers outside exclusive float bounds,
`multipleOf`, and union members constrained by a regex `pattern` we cannot satisfy.
"""

from __future__ import annotations

import math
import string
from datetime import date, timedelta
from typing import Any, cast

__all__ = ('generate_example', 'generate_tool_args')

_CHARS = string.ascii_letters + string.digits + string.punctuation


def generate_example(schema: dict[str, Any], *, seed: int = 0) -> Any:
    """An example value for `schema`, deterministic in `seed`."""
    return _Generator(schema, seed).value(schema)


def generate_tool_args(parameters_json_schema: dict[str, Any], *, seed: int = 0) -> dict[str, Any]:
    """Example arguments for a tool with the given (object) parameters schema."""
    value = generate_example(parameters_json_schema, seed=seed)
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


class _Generator:
    def __init__(self, root: dict[str, Any], seed: int) -> None:
        self.defs: dict[str, Any] = {**root.get('definitions', {}), **root.get('$defs', {})}
        self.seed = seed

    def chars(self) -> str:
        """Characters numbered like spreadsheet columns over letters, digits and punctuation."""
        count = len(_CHARS)
        prefix = ''
        rest = self.seed // count
        while rest > 0:
            prefix += _CHARS[(rest - 1) % count]
            rest //= count
        return prefix + _CHARS[self.seed % count]

    def deref(self, schema: dict[str, Any]) -> dict[str, Any]:
        while '$ref' in schema:
            schema = self.defs.get(str(schema['$ref']).rsplit('/', 1)[-1], {})
        return schema

    def value(self, schema: dict[str, Any], force: str | None = None) -> Any:
        if 'const' in schema:
            return schema['const']
        if enum := schema.get('enum'):
            return enum[self.seed % len(enum)]
        if examples := schema.get('examples'):
            return examples[self.seed % len(examples)]
        if '$ref' in schema:
            return self.value(self.deref(schema), force)
        for key in ('anyOf', 'oneOf'):
            if options := schema.get(key):
                return self.union(cast(list[dict[str, Any]], options), schema.get('discriminator'))
        if 'allOf' in schema:
            return self.value(self.merge_all_of(schema), force)
        kind = schema.get('type')
        if isinstance(kind, list):
            # Not expressible in Pydantic AI's generator; the first listed type is the natural pick.
            kind = cast(list[str], kind)[0] if kind else None
        if kind is None:
            return self.chars()
        if kind == 'object':
            return self.object(schema, force)
        if kind == 'string':
            return self.string(schema)
        if kind == 'integer':
            return self.integer(schema)
        if kind == 'number':
            return self.number(schema)
        if kind == 'boolean':
            return bool(self.seed % 2)
        if kind == 'array':
            return self.array(schema)
        if kind == 'null':
            return None
        raise NotImplementedError(f'TestModel cannot generate a value of JSON schema type {kind!r}')

    def union(self, options: list[dict[str, Any]], discriminator: Any) -> Any:
        chosen = options[self.seed % len(options)]
        if 'pattern' in self.deref(chosen) or self._numeric_string(chosen, options):
            # A regex-constrained member, or the string form of a number (Decimal is `number | string`, with a
            # pattern or without one depending on the pydantic version), would get an invalid value: pick another.
            chosen = next(
                (o for o in options if 'pattern' not in self.deref(o) and not self._numeric_string(o, options)), chosen
            )
        tag: Any = cast(dict[str, Any], discriminator).get('propertyName') if isinstance(discriminator, dict) else None
        return self.value(chosen, tag if isinstance(tag, str) else None)

    def _numeric_string(self, option: dict[str, Any], options: list[dict[str, Any]]) -> bool:
        """`option` is a plain string next to a number in the same union: the number's text form."""
        if self.deref(option).get('type') != 'string':
            return False
        return any(self.deref(o).get('type') in ('number', 'integer') for o in options)

    def merge_all_of(self, schema: dict[str, Any]) -> dict[str, Any]:
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != 'allOf'}
        for sub in cast(list[dict[str, Any]], schema['allOf']):
            sub = self.deref(sub)
            if 'allOf' in sub:
                sub = self.merge_all_of(sub)
            properties = {**sub.get('properties', {}), **merged.get('properties', {})}
            required = [*sub.get('required', []), *merged.get('required', [])]
            merged = {**sub, **merged}
            if properties:
                merged['properties'] = properties
            if required:
                merged['required'] = required
        return merged

    def object(self, schema: dict[str, Any], force: str | None) -> dict[str, Any]:
        # `force` is a discriminated union's tag: optional in the member's schema (it has a default), but the
        # union cannot be validated without it.
        required = set(schema.get('required', []))
        if force is not None:
            required.add(force)
        data: dict[str, Any] = {}
        for name, prop in cast(dict[str, dict[str, Any]], schema.get('properties') or {}).items():
            if name in required:
                data[name] = self.value(prop)
        extra = schema.get('additionalProperties')
        if extra:
            key = 'additionalProperty'
            if names := schema.get('propertyNames'):
                # Constrained keys (`dict[Literal[...], V]`) cannot take the placeholder name.
                key = str(self.value(cast(dict[str, Any], names)))
            while key in data:
                key += '_'
            data[key] = self.chars() if extra is True else self.value(cast(dict[str, Any], extra))
        return data

    def string(self, schema: dict[str, Any]) -> str:
        min_length = schema.get('minLength')
        if min_length is not None:
            return self.chars() * min_length
        if schema.get('maxLength') == 0:
            return ''
        formatted = _formatted(schema.get('format'), self.seed)
        return formatted if formatted is not None else self.chars()

    def integer(self, schema: dict[str, Any]) -> int:
        minimum = schema.get('minimum')
        maximum = schema.get('maximum')
        if minimum is not None and minimum == maximum:
            return minimum
        if maximum is None and (exclusive := schema.get('exclusiveMaximum')) is not None:
            maximum = exclusive - 1
        if minimum is None and (exclusive := schema.get('exclusiveMinimum')) is not None:
            minimum = exclusive + 1
        if minimum is not None and maximum is not None:
            value = minimum + self.seed % (maximum - minimum) if maximum != minimum else minimum
        elif minimum is not None:
            value = minimum + self.seed
        elif maximum is not None:
            value = maximum - self.seed
        else:
            value = self.seed
        return _fit_multiple(value, schema.get('multipleOf'), maximum)

    def number(self, schema: dict[str, Any]) -> float:
        value = float(self.integer({k: v for k, v in schema.items() if k != 'multipleOf'}))
        low = schema.get('minimum', schema.get('exclusiveMinimum', -math.inf))
        high = schema.get('maximum', schema.get('exclusiveMaximum', math.inf))
        too_low = value < low or ('exclusiveMinimum' in schema and value <= low)
        too_high = value > high or ('exclusiveMaximum' in schema and value >= high)
        if too_low or too_high:
            # Integer steps overshoot narrow float bounds (`gt=0, lt=1`): take the middle of the range.
            value = (
                (low + high) / 2 if math.isfinite(low) and math.isfinite(high) else (low + 1 if too_low else high - 1)
            )
        multiple = schema.get('multipleOf')
        if isinstance(multiple, int | float) and multiple > 0 and not float(value / multiple).is_integer():
            value = math.ceil(value / multiple) * multiple
        return float(value)

    def array(self, schema: dict[str, Any]) -> list[Any]:
        data: list[Any] = []
        unique = schema.get('uniqueItems')
        for item in cast(list[dict[str, Any]], schema.get('prefixItems') or []):
            data.append(self.value(item))
            if unique:
                self.seed += 1
        items = schema.get('items', {})
        min_items = schema.get('minItems', 0)
        if min_items > len(data):
            wanted = min_items - len(data)
        else:
            max_items = schema.get('maxItems')
            wanted = 1 if items and (max_items is None or max_items > len(data)) else 0
        for _ in range(wanted):
            data.append(self.value(items))
            if unique:
                # Each unique item moves the seed on, so the next one differs (and so does what follows).
                self.seed += 1
        return data


def _fit_multiple(value: int, multiple: Any, maximum: int | None) -> int:
    if not isinstance(multiple, int) or multiple <= 0 or value % multiple == 0:
        return value
    value += multiple - value % multiple
    return value - multiple if maximum is not None and value > maximum else value


def _formatted(format_: Any, seed: int) -> str | None:
    """A value in the given string format, or `None` for formats without a syntax of their own."""
    if format_ == 'date':
        return (date(2024, 1, 1) + timedelta(days=seed)).isoformat()
    if format_ == 'date-time':
        return f'{(date(2024, 1, 1) + timedelta(days=seed)).isoformat()}T00:00:00Z'
    if format_ == 'time':
        return f'00:{seed % 60:02d}:00'
    if format_ == 'duration':
        return f'PT{seed}S'
    if isinstance(format_, str) and format_.startswith('uuid'):
        version = format_.removeprefix('uuid') or '4'
        return f'{seed:08x}-0000-{version}000-8000-000000000000'
    if format_ == 'email':
        return f'user{seed}@example.com'
    if format_ in ('uri', 'url', 'iri'):
        return f'https://example.com/{seed}'
    if format_ == 'ipv4':
        return f'192.0.2.{seed % 256}'
    if format_ == 'ipv6':
        return f'2001:db8::{seed % 65536:x}'
    return None
