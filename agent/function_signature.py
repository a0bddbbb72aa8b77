"""Tools shown to a model as Python function signatures ("code mode") rather than as JSON schemas.

`ToolDefinition.function_signature` reads a tool's parameter and return schemas into a `FunctionSignature`;
`render` prints it as a keyword-only `def` with a docstring and a body, and the object types it uses print as
`TypedDict` classes:

```python
sig = FunctionSignature.from_schema(
    name='get_user',
    parameters_schema={'type': 'object', 'properties': {'id': {'type': 'integer'}}, 'required': ['id']},
)
sig.render('...', description='Look a user up.')
# def get_user(*, id: int) -> Any:
#     \"\"\"Look a user up.\"\"\"
#     ...
```

Several tools shown together may each define a type under the same name. `get_conflicting_type_names` makes
identical ones one object (so the class is printed once) and returns the names that still stand for different
types; those print qualified by their tool's name (`get_user_Address`) wherever they appear.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ._signature_schema import ANY, SchemaReader
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
    docstring_lines,
    renamed_types,
)

__all__ = (
    'FunctionParam',
    'FunctionSignature',
    'GenericTypeExpr',
    'LiteralTypeExpr',
    'SimpleTypeExpr',
    'SimpleTypeName',
    'TypeExpr',
    'TypeFieldSignature',
    'TypeSignature',
    'UnionTypeExpr',
)


@dataclass(kw_only=True)
class FunctionSignature:
    """A tool as a function: its parameters, return type and the object types they use.

    The name and description may be given again when rendering (a `ToolDefinition` passes its own).
    """

    name: str
    """The function's name (also what qualifies its conflicting type names)."""
    description: str | None = None
    """The docstring, unless `render` is given one."""
    params: dict[str, FunctionParam] = field(default_factory=dict[str, FunctionParam])
    """The parameters, all rendered keyword-only (a JSON schema has no positional arguments)."""
    return_type: TypeExpr
    """The return type (`Any` when the tool has no return schema)."""
    referenced_types: list[TypeSignature] = field(default_factory=list[TypeSignature])
    """The object types the parameters and return type use, to be defined next to the function."""
    is_async: bool = False
    """Whether to render `async def`, unless `render` says otherwise."""
    kind: Literal['function'] = 'function'
    """Discriminator of the node."""

    def render(
        self,
        body: str,
        *,
        name: str | None = None,
        description: str | None = None,
        is_async: bool | None = None,
        conflicting_type_names: frozenset[str] = frozenset(),
    ) -> str:
        """The function definition: `def name(*, params) -> return_type:`, the docstring, then `body`.

        Args:
            body: The function's body, e.g. `'...'`.
            name: The function's name (default: `self.name`); types in `conflicting_type_names` are qualified
                with it.
            description: The docstring (default: `self.description`).
            is_async: Whether to render `async def` (default: `self.is_async`).
            conflicting_type_names: From `get_conflicting_type_names`, when several tools are shown together.
        """
        name = name or self.name
        description = self.description if description is None else description
        is_async = self.is_async if is_async is None else is_async
        with renamed_types(name, conflicting_type_names):
            params = ', '.join(map(str, self.params.values()))
            returns = str(self.return_type)
        # Keyword-only, so a model writing calls always names the arguments.
        arguments = f'*, {params}' if params else ''
        lines = [f'{"async def" if is_async else "def"} {name}({arguments}) -> {returns}:']
        if description:
            lines += docstring_lines(description, '    ')
        lines.append(f'    {body}')
        return '\n'.join(lines)

    @classmethod
    def from_schema(
        cls, *, name: str, parameters_schema: dict[str, Any], return_schema: dict[str, Any] | None = None
    ) -> FunctionSignature:
        """Read a tool's parameter schema (an object) and optional return schema, each with its own `$defs`.

        A return type with the name and shape of a parameter type is listed once; one with the same name and a
        different shape is kept, for `get_conflicting_type_names` to tell apart.
        """
        params_reader = SchemaReader.for_schema(name, parameters_schema)
        params = params_reader.params(parameters_schema)
        referenced = list(params_reader.types.values())
        return_type: TypeExpr = ANY
        if return_schema is not None:
            return_reader = SchemaReader.for_schema(name, return_schema)
            return_type = return_reader.read(return_schema, 'Return')
            for type_sig in return_reader.types.values():
                same = params_reader.types.get(type_sig.name)
                if same is None or not same.structurally_equal(type_sig):
                    referenced.append(type_sig)
        return cls(name=name, params=params, return_type=return_type, referenced_types=referenced)

    @staticmethod
    def get_conflicting_type_names(signatures: list[FunctionSignature]) -> frozenset[str]:
        """Settle type names across signatures shown together; returns the names that need qualifying.

        A type with the name and shape of one seen in an earlier signature is replaced by that one everywhere
        in its signature (so it is defined once); a type with a seen name but another shape keeps its object,
        and its name is returned. Pass the result to `render` and `render_type_definitions`.
        """
        seen: dict[str, TypeSignature] = {}
        conflicting: set[str] = set()
        for sig in signatures:
            for i, type_sig in enumerate(sig.referenced_types):
                first = seen.setdefault(type_sig.name, type_sig)
                if first is type_sig:
                    continue
                if first.structurally_equal(type_sig):
                    sig.referenced_types[i] = first
                    _replace_type(sig, type_sig, first)
                else:
                    conflicting.add(type_sig.name)
        return frozenset(conflicting)

    @staticmethod
    def collect_unique_referenced_types(signatures: list[FunctionSignature]) -> list[TypeSignature]:
        """The referenced types of all signatures, each object once, in order of first use."""
        unique: dict[int, TypeSignature] = {}
        for sig in signatures:
            for type_sig in sig.referenced_types:
                unique.setdefault(id(type_sig), type_sig)
        return list(unique.values())

    @staticmethod
    def render_type_definitions(
        signatures: list[FunctionSignature], conflicting_type_names: frozenset[str]
    ) -> list[str]:
        """The `TypedDict` definitions the signatures need, each once.

        A type whose name is in `conflicting_type_names` is defined under the name of the first signature using
        it (`get_user_Address`), as that signature's `render` prints it.
        """
        owners: dict[int, str] = {}
        for sig in signatures:
            for type_sig in sig.referenced_types:
                if type_sig.name in conflicting_type_names:
                    owners.setdefault(id(type_sig), sig.name)
        unique = FunctionSignature.collect_unique_referenced_types(signatures)
        return [
            t.render_definition(owner_name=owners.get(id(t)), conflicting_type_names=conflicting_type_names)
            for t in unique
        ]


def _replace_type(sig: FunctionSignature, old: TypeSignature, new: TypeSignature) -> None:
    """Point every use of `old` in `sig` (parameters, return type, fields of its types) at `new`."""

    def swap(expr: TypeExpr) -> TypeExpr:
        if expr is old:
            return new
        if isinstance(expr, GenericTypeExpr):
            expr.args = [swap(arg) for arg in expr.args]
        elif isinstance(expr, UnionTypeExpr):
            expr.members = [swap(member) for member in expr.members]
        return expr

    for param in sig.params.values():
        param.type = swap(param.type)
    sig.return_type = swap(sig.return_type)
    for type_sig in sig.referenced_types:
        for type_field in type_sig.fields.values():
            type_field.type = swap(type_field.type)
