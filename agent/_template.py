"""`TemplateStr`: instructions written as a small Handlebars-style template, rendered against the run's deps.

Supported syntax:

- `{{name}}`, `{{user.name}}`, `{{items.0}}`: a value looked up by key (mappings), index (sequences) or
  attribute (any object: dataclasses, pydantic models, ...). `None` renders as an empty string.
  `{{{name}}}` is accepted and means the same: nothing is HTML-escaped, the output goes to a model.
- `{{#if cond}}...{{else}}...{{/if}}` and `{{#unless cond}}...{{/unless}}`: Python truthiness; a missing
  value counts as false, so optional keys can be tested.
- `{{#each items}}...{{else}}...{{/each}}`: repeats the body for each element (for a mapping, each value),
  with `{{this}}`, `{{this.field}}`, `{{@index}}`, `{{@first}}`, `{{@last}}` and, for mappings, `{{@key}}`.
  Inside the body a name is looked up on the element first, then in the enclosing scopes.
- `{{! comment }}` renders nothing.

Names starting with `_` are never looked up, so a template cannot reach into private state or dunder
attributes. A variable that cannot be found raises `UserError` naming it, rather than rendering silently
as nothing, because a typo in instructions is otherwise very hard to spot.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, NoReturn, TypeAlias, cast

from typing_extensions import TypeVar

from .exceptions import UserError

__all__ = ('TemplateStr',)

_DepsT = TypeVar('_DepsT', default=Any)
"""The type of the deps a template is rendered against (only for type checkers: `TemplateStr[MyDeps]`)."""

_TAG = re.compile(r'\{\{\{?\s*(.*?)\s*\}?\}\}', re.DOTALL)
_BLOCKS = ('if', 'unless', 'each')


class _Missing:
    """Marks a lookup that found nothing (distinct from a value that is `None`)."""


_MISSING = _Missing()


@dataclass
class _Text:
    text: str


@dataclass
class _Var:
    path: str


@dataclass
class _Block:
    kind: str
    path: str
    body: list[_Node] = field(default_factory=list['_Node'])
    otherwise: list[_Node] = field(default_factory=list['_Node'])
    in_else: bool = False


_Node: TypeAlias = _Text | _Var | _Block


@dataclass
class _Frame:
    """One lookup scope: the root deps, or the current element of an `each` with its `@` data."""

    context: Any
    data: dict[str, Any] = field(default_factory=dict[str, Any])


@dataclass(frozen=True)
class TemplateStr(Generic[_DepsT]):
    """Instructions as a Handlebars-style template, e.g. `TemplateStr('Hello {{name}}')`.

    The template is parsed when it is created, so a syntax error (an unclosed block, say) shows up at
    agent construction instead of during a run. See the module docstring for the supported syntax.
    """

    template: str
    """The template source."""
    _nodes: list[_Node] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, '_nodes', self._parse())

    def render(self, deps: _DepsT) -> str:
        """Render the template with `deps` as its root scope.

        Raises:
            UserError: a variable used in the template is not defined on `deps`.
        """
        out: list[str] = []
        self._render(self._nodes, [_Frame(deps)], out)
        return ''.join(out)

    def _parse(self) -> list[_Node]:
        root: list[_Node] = []
        stack: list[_Block] = []

        def current() -> list[_Node]:
            if not stack:
                return root
            block = stack[-1]
            return block.otherwise if block.in_else else block.body

        pos = 0
        for match in _TAG.finditer(self.template):
            if match.start() > pos:
                current().append(_Text(self.template[pos : match.start()]))
            pos = match.end()
            tag = match.group(1)
            if tag.startswith('!'):
                continue
            if tag.startswith('#'):
                kind, _, path = tag[1:].partition(' ')
                path = path.strip()
                if kind not in _BLOCKS or not path:
                    self._syntax_error(f'unsupported block tag {{{{{tag}}}}}; use #if, #unless or #each with a value')
                block = _Block(kind, path)
                current().append(block)
                stack.append(block)
            elif tag.startswith('/'):
                kind = tag[1:].strip()
                if not stack or stack[-1].kind != kind:
                    expected = f'{{{{/{stack[-1].kind}}}}}' if stack else 'no closing tag'
                    self._syntax_error(f'unexpected {{{{{tag}}}}}, expected {expected}')
                stack.pop()
            elif tag == 'else':
                if not stack or stack[-1].in_else:
                    self._syntax_error('{{else}} outside an #if, #unless or #each block')
                stack[-1].in_else = True
            elif not tag:
                self._syntax_error('empty tag {{}}')
            else:
                current().append(_Var(tag))
        if stack:
            self._syntax_error(f'{{{{#{stack[-1].kind} {stack[-1].path}}}}} is never closed')
        if pos < len(self.template):
            current().append(_Text(self.template[pos:]))
        return root

    def _syntax_error(self, problem: str) -> NoReturn:
        raise UserError(f'Invalid template {self.template!r}: {problem}.')

    def _render(self, nodes: list[_Node], frames: list[_Frame], out: list[str]) -> None:
        for node in nodes:
            if isinstance(node, _Text):
                out.append(node.text)
            elif isinstance(node, _Var):
                value = self._lookup(node.path, frames)
                if isinstance(value, _Missing):
                    self._missing(node.path)
                out.append('' if value is None else str(value))
            elif node.kind == 'each':
                self._render_each(node, frames, out)
            else:
                value = self._lookup(node.path, frames)
                truthy = not isinstance(value, _Missing) and bool(value)
                if node.kind == 'unless':
                    truthy = not truthy
                self._render(node.body if truthy else node.otherwise, frames, out)

    def _render_each(self, node: _Block, frames: list[_Frame], out: list[str]) -> None:
        value = self._lookup(node.path, frames)
        if isinstance(value, _Missing):
            self._missing(node.path)
        items: list[tuple[Any, dict[str, Any]]]
        if isinstance(value, Mapping):
            mapping = cast(Mapping[Any, Any], value)
            items = [(item, {'key': key}) for key, item in mapping.items()]
        elif isinstance(value, Iterable) and not isinstance(value, str | bytes):
            items = [(item, {}) for item in cast(Iterable[Any], value)]
        else:
            raise UserError(
                f'Template {self.template!r}: {{{{#each {node.path}}}}} needs a list or mapping, '
                f'got {type(value).__name__}.'
            )
        if not items:
            self._render(node.otherwise, frames, out)
            return
        for index, (item, data) in enumerate(items):
            data.update(index=index, first=index == 0, last=index == len(items) - 1)
            self._render(node.body, [*frames, _Frame(item, data)], out)

    def _lookup(self, path: str, frames: list[_Frame]) -> Any:
        head, *rest = path.split('.')
        if head.startswith('@'):
            value = frames[-1].data.get(head[1:], _MISSING)
        elif head == 'this':
            value = frames[-1].context
        else:
            # Like Handlebars' compat mode: the innermost scope that has the name wins.
            value = _MISSING
            for frame in reversed(frames):
                value = _get(frame.context, head)
                if not isinstance(value, _Missing):
                    break
        for segment in rest:
            if isinstance(value, _Missing):
                break
            value = _get(value, segment)
        return value

    def _missing(self, path: str) -> NoReturn:
        raise UserError(
            f'Template variable {path!r} is not defined: the run dependencies have no such key or attribute '
            f'(template: {self.template!r}).'
        )


def _get(value: Any, name: str) -> Any:
    """One lookup step: mapping key, sequence index or public attribute."""
    if not name or name.startswith('_'):
        return _MISSING
    if isinstance(value, Mapping):
        return cast(Mapping[str, Any], value).get(name, _MISSING)
    if name.isdigit() and isinstance(value, Sequence) and not isinstance(value, str | bytes):
        sequence = cast(Sequence[Any], value)
        index = int(name)
        return sequence[index] if index < len(sequence) else _MISSING
    return getattr(value, name, _MISSING)
