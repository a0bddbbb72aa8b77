"""The tree a rendered tool signature is made of: type expressions, TypedDict-style types, parameters.

Every node renders itself with `str()`. A `TypeSignature` renders as its name, which a signature may have to
qualify with the owning tool's name when two tools define different types under one name (`tool_a_User`).
Rather than threading that mapping through every `__str__`, the renderer installs it in a context variable
for the duration of one render (`renamed_types`); nodes read it when they print a type's name.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = (
    'FunctionParam',
    'GenericTypeExpr',
    'LiteralTypeExpr',
    'SimpleTypeExpr',
    'SimpleTypeName',
    'TypeExpr',
    'TypeFieldSignature',
    'TypeSignature',
    'UnionTypeExpr',
    'docstring_lines',
    'renamed_types',
)

_renames: ContextVar[Mapping[str, str] | None] = ContextVar('_renames', default=None)


@contextmanager
def renamed_types(owner: str | None, names: frozenset[str]) -> Generator[None]:
    """While rendering, print each type named in `names` as `<owner>_<name>` (nothing changes without an owner)."""
    token = _renames.set({name: f'{owner}_{name}' for name in names} if owner else None)
    try:
        yield
    finally:
        _renames.reset(token)


def docstring_lines(text: str, indent: str) -> list[str]:
    """A docstring: on one line when the text has one line, else with the quotes on lines of their own."""
    text = text.strip()
    if '\n' not in text:
        return [f'{indent}"""{text}"""']
    body = [f'{indent}{line}' if line.strip() else '' for line in text.split('\n')]
    return [f'{indent}"""', *body, f'{indent}"""']


SimpleTypeName: TypeAlias = Literal['str', 'int', 'float', 'bool', 'Any', 'None']
"""The names a `SimpleTypeExpr` may have."""


@dataclass
class SimpleTypeExpr:
    """A builtin type by name: `str`, `int`, `float`, `bool`, `Any` or `None`."""

    name: SimpleTypeName
    """The type's name."""
    kind: Literal['simple'] = 'simple'
    """Discriminator of the node."""

    def __str__(self) -> str:
        return self.name


@dataclass
class LiteralTypeExpr:
    """A fixed set of values: `Literal['a', 'b']`."""

    values: list[Any]
    """The allowed values, printed with `repr`."""
    kind: Literal['literal'] = 'literal'
    """Discriminator of the node."""

    def __str__(self) -> str:
        return 'Literal[' + ', '.join(map(repr, self.values)) + ']'


@dataclass
class GenericTypeExpr:
    """A parametrised container: `list[User]`, `dict[str, int]`, `tuple[float, float]`."""

    base: str
    """The container's name."""
    args: list[TypeExpr]
    """Its type arguments."""
    kind: Literal['generic'] = 'generic'
    """Discriminator of the node."""

    def __str__(self) -> str:
        return f'{self.base}[{", ".join(map(str, self.args))}]'


@dataclass
class UnionTypeExpr:
    """Any one of several types: `str | None`."""

    members: list[TypeExpr]
    """The alternatives, in order."""
    kind: Literal['union'] = 'union'
    """Discriminator of the node."""

    def __str__(self) -> str:
        return ' | '.join(map(str, self.members))


@dataclass(kw_only=True)
class TypeFieldSignature:
    """One key of a `TypeSignature`, rendered as a line of a TypedDict body."""

    name: str
    """The key."""
    type: TypeExpr
    """The value's type."""
    required: bool = False
    """Whether the key must be present (an optional key renders as `NotRequired[...]`)."""
    description: str | None = None
    """Rendered as a docstring under the key."""
    kind: Literal['field'] = 'field'
    """Discriminator of the node."""

    def __str__(self) -> str:
        shown = str(self.type) if self.required else f'NotRequired[{self.type}]'
        lines = [f'    {self.name}: {shown}']
        if self.description:
            lines += docstring_lines(self.description, '    ')
        return '\n'.join(lines)


@dataclass(kw_only=True)
class TypeSignature:
    """A named object type, defined as a TypedDict class; in a type expression it renders as its name."""

    name: str
    """The class name (qualified with the tool's name when it conflicts with another tool's type)."""
    description: str | None = None
    """Rendered as the class docstring."""
    fields: dict[str, TypeFieldSignature] = field(default_factory=dict[str, TypeFieldSignature])
    """The keys, in order."""
    kind: Literal['type'] = 'type'
    """Discriminator of the node."""

    @property
    def display_name(self) -> str:
        """The name as printed in the render under way (qualified if it conflicts)."""
        return (_renames.get() or {}).get(self.name, self.name)

    def __str__(self) -> str:
        return self.display_name

    def render_definition(
        self, *, owner_name: str | None = None, conflicting_type_names: frozenset[str] = frozenset()
    ) -> str:
        """The `class Name(TypedDict):` definition.

        Args:
            owner_name: The tool this definition belongs to; names in `conflicting_type_names` (this type's
                and those of its fields) are then qualified with it.
            conflicting_type_names: Names shared by different types of several tools
                (from `FunctionSignature.get_conflicting_type_names`).
        """
        if owner_name is None or not conflicting_type_names:
            return self._definition()
        with renamed_types(owner_name, conflicting_type_names):
            return self._definition()

    def _definition(self) -> str:
        lines = [f'class {self.display_name}(TypedDict):']
        if self.description:
            lines += docstring_lines(self.description, '    ')
        lines += [str(f) for f in self.fields.values()]
        if len(lines) == 1:
            lines.append('    pass')
        return '\n'.join(lines)

    def structurally_equal(self, other: TypeSignature) -> bool:
        """Whether both have the same keys, each equally required and of the same rendered type.

        Names and descriptions are not compared: they do not change what a value must look like.
        """
        if self.fields.keys() != other.fields.keys():
            return False
        return all(
            f.required == other.fields[key].required and str(f.type) == str(other.fields[key].type)
            for key, f in self.fields.items()
        )


TypeExpr: TypeAlias = 'TypeSignature | SimpleTypeExpr | LiteralTypeExpr | GenericTypeExpr | UnionTypeExpr'
"""Any node that can stand where a type is expected."""


@dataclass(kw_only=True)
class FunctionParam:
    """One (keyword-only) parameter of a rendered function."""

    name: str
    """The parameter's name."""
    type: TypeExpr
    """Its type."""
    default: str | None = None
    """Its default as Python source (`"'hello'"`, `'None'`), or `None` for a required parameter."""
    kind: Literal['param'] = 'param'
    """Discriminator of the node."""

    def __str__(self) -> str:
        annotated = f'{self.name}: {self.type}'
        return annotated if self.default is None else f'{annotated} = {self.default}'
