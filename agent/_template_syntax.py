"""The template language behind `TemplateStr`: parsing a source into nodes and rendering them against deps.

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

Rendering is plain Python over the parsed nodes: no code is generated or evaluated and values are never
called, so it is deterministic and safe inside Temporal's workflow sandbox.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeAlias, cast

from .exceptions import UserError

__all__ = ('Block', 'Node', 'Text', 'Var', 'parse', 'render')

_TAG = re.compile(r'\{\{\{?\s*(.*?)\s*\}?\}\}', re.DOTALL)
_BLOCKS = ('if', 'unless', 'each')


class _Missing:
    """Marks a lookup that found nothing (distinct from a value that is `None`)."""


_MISSING = _Missing()


@dataclass
class Text:
    """Literal text, rendered as is."""

    text: str


@dataclass
class Var:
    """A `{{path}}` tag."""

    path: str


@dataclass
class Block:
    """An `#if`, `#unless` or `#each` block, with its `{{else}}` branch."""

    kind: str
    path: str
    body: list[Node] = field(default_factory=list['Node'])
    otherwise: list[Node] = field(default_factory=list['Node'])
    in_else: bool = False


Node: TypeAlias = Text | Var | Block


@dataclass
class _Frame:
    """One lookup scope: the root deps, or the current element of an `each` with its `@` data."""

    context: Any
    data: dict[str, Any] = field(default_factory=dict[str, Any])


def parse(source: str) -> list[Node]:
    """Parse a template source into nodes.

    Raises:
        UserError: the template is malformed (an unclosed or unknown block, a stray `{{else}}`, ...).
    """
    root: list[Node] = []
    stack: list[Block] = []

    def current() -> list[Node]:
        if not stack:
            return root
        block = stack[-1]
        return block.otherwise if block.in_else else block.body

    pos = 0
    for match in _TAG.finditer(source):
        if match.start() > pos:
            current().append(Text(source[pos : match.start()]))
        pos = match.end()
        tag = match.group(1)
        if tag.startswith('!'):
            continue
        if tag.startswith('#'):
            kind, _, path = tag[1:].partition(' ')
            path = path.strip()
            if kind not in _BLOCKS or not path:
                _syntax_error(source, f'unsupported block tag {{{{{tag}}}}}; use #if, #unless or #each with a value')
            block = Block(kind, path)
            current().append(block)
            stack.append(block)
        elif tag.startswith('/'):
            kind = tag[1:].strip()
            if not stack or stack[-1].kind != kind:
                expected = f'{{{{/{stack[-1].kind}}}}}' if stack else 'no closing tag'
                _syntax_error(source, f'unexpected {{{{{tag}}}}}, expected {expected}')
            stack.pop()
        elif tag == 'else':
            if not stack or stack[-1].in_else:
                _syntax_error(source, '{{else}} outside an #if, #unless or #each block')
            stack[-1].in_else = True
        elif not tag:
            _syntax_error(source, 'empty tag {{}}')
        else:
            current().append(Var(tag))
    if stack:
        _syntax_error(source, f'{{{{#{stack[-1].kind} {stack[-1].path}}}}} is never closed')
    if pos < len(source):
        current().append(Text(source[pos:]))
    return root


def render(nodes: list[Node], source: str, deps: Any) -> str:
    """Render parsed nodes with `deps` as the root scope (`source` is only used in error messages).

    Raises:
        UserError: a variable used in the template is not defined on `deps`.
    """
    out: list[str] = []
    _Renderer(source).render(nodes, [_Frame(deps)], out)
    return ''.join(out)


def _syntax_error(source: str, problem: str) -> NoReturn:
    raise UserError(f'Invalid template {source!r}: {problem}.')


@dataclass
class _Renderer:
    source: str

    def render(self, nodes: list[Node], frames: list[_Frame], out: list[str]) -> None:
        for node in nodes:
            if isinstance(node, Text):
                out.append(node.text)
            elif isinstance(node, Var):
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
                self.render(node.body if truthy else node.otherwise, frames, out)

    def _render_each(self, node: Block, frames: list[_Frame], out: list[str]) -> None:
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
                f'Template {self.source!r}: {{{{#each {node.path}}}}} needs a list or mapping, '
                f'got {type(value).__name__}.'
            )
        if not items:
            self.render(node.otherwise, frames, out)
            return
        for index, (item, data) in enumerate(items):
            data.update(index=index, first=index == 0, last=index == len(items) - 1)
            self.render(node.body, [*frames, _Frame(item, data)], out)

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
            f'(template: {self.source!r}).'
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
