"""A small docstring parser for Google, NumPy and Sphinx styles.

Only what tool schemas need is extracted: the description (the text before the first section), a
description per parameter and the description (and written type) of the return value. Parameter types written
in docstrings are ignored, because the signature's annotations are the source of truth; the return value's
written type is kept, since it goes into the tool description with the `Returns` text (see `tool_description`).
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

__all__ = ('DocstringFormat', 'ParsedDocstring', 'parse_docstring', 'tool_description')

DocstringFormat = Literal['google', 'numpy', 'sphinx', 'auto']
"""The docstring style to parse; `'auto'` infers it from the docstring's structure."""


@dataclass(frozen=True)
class ParsedDocstring:
    """What was extracted from a docstring."""

    description: str | None
    """The text before the first section, or `None` if there is none."""
    params: dict[str, str] = field(default_factory=dict[str, str])
    """Parameter descriptions keyed by parameter name (without leading `*`/`**`)."""
    returns: str | None = None
    """The description of the return value, if documented."""
    returns_type: str | None = None
    """The type of the return value as written in the docstring (`int: ...`, `:rtype:`, NumPy's type line)."""


def tool_description(parsed: ParsedDocstring) -> str | None:
    """The description a tool gets from its docstring: the summary, plus the `Returns` section when there is one.

    A documented return value is kept so the model knows what the tool gives back. The summary and the return
    value are then marked up with tags (`<summary>`, `<returns>` holding `<type>` and `<description>`), so the
    model can tell the two apart.
    """
    if parsed.returns is None and parsed.returns_type is None:
        return parsed.description
    lines = ['<returns>']
    if parsed.returns_type:
        lines.append(f'<type>{parsed.returns_type}</type>')
    # A NumPy section holding only a type line has no separate description.
    text = parsed.returns if parsed.returns != parsed.returns_type else None
    lines.extend([f'<description>{text or ""}</description>', '</returns>'])
    returns = '\n'.join(lines)
    if parsed.description:
        return f'<summary>{parsed.description}</summary>\n{returns}'
    return returns


_PARAM_SECTIONS = frozenset(
    {
        'args',
        'arguments',
        'parameters',
        'params',
        'keyword args',
        'keyword arguments',
        'other args',
        'other arguments',
        'other parameters',
    }
)
_RETURN_SECTIONS = frozenset({'returns', 'return'})
# Sections that carry no parameter information but still end the description.
_OTHER_SECTIONS = frozenset(
    {
        'yields',
        'yield',
        'receives',
        'raises',
        'raise',
        'except',
        'exceptions',
        'warns',
        'warnings',
        'warning',
        'examples',
        'example',
        'note',
        'notes',
        'see also',
        'references',
        'todo',
        'attributes',
        'methods',
        'tip',
        'hint',
        'important',
        'caution',
        'danger',
        'attention',
    }
)
_ALL_SECTIONS = _PARAM_SECTIONS | _RETURN_SECTIONS | _OTHER_SECTIONS

_GOOGLE_HEADER = re.compile(r'^(?P<indent>[ \t]*)(?P<name>[A-Za-z][A-Za-z ]*?)[ \t]*:[ \t]*(?P<rest>.*)$')
_GOOGLE_ENTRY = re.compile(r'^(?P<name>\*{0,2}[A-Za-z_]\w*)[ \t]*(?:\((?P<type>[^)]*)\))?[ \t]*:(?P<desc>.*)$')
# A return value written as `type: description`; the type part must look like a type expression, so that a
# sentence such as `Note that: ...` is not mangled.
_TYPE_NAME = r'[A-Za-z_][\w.]*(?:\[[^\]]*\])?'
_GOOGLE_RETURN_TYPE = re.compile(rf'^{_TYPE_NAME}(?:[ \t]*\|[ \t]*{_TYPE_NAME})*[ \t]*:\s+')
_NUMPY_UNDERLINE = re.compile(r'^[ \t]*-{3,}[ \t]*$')
_SPHINX_FIELD = re.compile(r'^(?P<indent>[ \t]*):(?P<tag>[A-Za-z]+)(?P<args>[^:]*):(?P<desc>.*)$')
_SPHINX_PARAM_TAGS = frozenset({'param', 'parameter', 'arg', 'argument', 'key', 'keyword'})
_SPHINX_RETURN_TAGS = frozenset({'returns', 'return'})
_SPHINX_DETECT = re.compile(
    r'^[ \t]*:(?:param|parameter|arg|argument|key|keyword|type|returns?|rtype|raises?)\b', re.MULTILINE
)


def parse_docstring(
    doc: str | None, *, format: DocstringFormat = 'auto', param_names: Sequence[str] = ()
) -> ParsedDocstring:
    """Parse a docstring into its description, parameter descriptions and return description.

    Args:
        doc: The raw docstring (as in `func.__doc__`); indentation is normalised first.
        format: The docstring style, or `'auto'` to detect it: Sphinx if a `:param ...:` style field is present,
            NumPy if a section header is underlined with dashes, Google otherwise.
        param_names: The names of the documented function's parameters. With `'auto'`, if the detected style
            finds none of them but another style does, the style that finds the most is used instead.

    Returns:
        The parsed docstring; an empty or missing docstring gives a description of `None` and no params.
    """
    if doc is None or not doc.strip():
        return ParsedDocstring(description=None)
    lines = inspect.cleandoc(doc).splitlines()
    if format != 'auto':
        return _PARSERS[format](lines)

    detected = _detect_format(lines)
    parsed = _PARSERS[detected](lines)
    wanted = {name.lstrip('*') for name in param_names}
    if wanted and not wanted & parsed.params.keys():
        best = max(
            (_PARSERS[style](lines) for style in _PARSERS if style != detected),
            key=lambda candidate: len(wanted & candidate.params.keys()),
        )
        if wanted & best.params.keys():
            return best
    return parsed


def _detect_format(lines: list[str]) -> Literal['google', 'numpy', 'sphinx']:
    if _SPHINX_DETECT.search('\n'.join(lines)):
        return 'sphinx'
    if any(_numpy_header_at(lines, index) is not None for index in range(len(lines))):
        return 'numpy'
    return 'google'


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip())


def _join_description(lines: list[str]) -> str | None:
    text = textwrap.dedent('\n'.join(lines)).strip()
    return text or None


def _entry_text(first: str, continuation: list[str]) -> str:
    """Join an entry's text from its first line and its (indented) continuation lines."""
    rest = textwrap.dedent('\n'.join(continuation)).strip()
    first = first.strip()
    if first and rest:
        return f'{first}\n{rest}'
    return first or rest


def _split_entries(body: list[str]) -> list[tuple[str, list[str]]]:
    """Split a section body into entries: a line at the body's base indent starts an entry."""
    non_blank = [line for line in body if line.strip()]
    if not non_blank:
        return []
    base = min(_indent_of(line) for line in non_blank)
    entries: list[tuple[str, list[str]]] = []
    for line in body:
        if line.strip() and _indent_of(line) <= base:
            entries.append((line.strip(), []))
        elif entries:
            entries[-1][1].append(line)
    return entries


# --- Google -----------------------------------------------------------------------------------------------


def _google_header(line: str) -> tuple[str, int, str] | None:
    """Return `(section, indent, inline text)` if `line` is a Google section header."""
    match = _GOOGLE_HEADER.match(line)
    if match is None:
        return None
    name = match['name'].strip().lower()
    rest = match['rest'].strip()
    if name not in _ALL_SECTIONS:
        return None
    # Only a return section may carry its text on the header line (`Returns: the total.`); for anything else
    # trailing text means this is an ordinary sentence that happens to start with a section word.
    if rest and name not in _RETURN_SECTIONS:
        return None
    return name, len(match['indent']), rest


def _parse_google(lines: list[str]) -> ParsedDocstring:
    description: list[str] = []
    params: dict[str, str] = {}
    returns: str | None = None
    returns_type: str | None = None
    index = 0
    while index < len(lines) and _google_header(lines[index]) is None:
        description.append(lines[index])
        index += 1

    while index < len(lines):
        header = _google_header(lines[index])
        index += 1
        if header is None:
            continue
        section, indent, inline = header
        # `cleandoc` can't know the indentation of the docstring's first line, so when a section header is the
        # very first line its body has lost its relative indent: it then runs until the next header instead.
        on_first_line = index == 1
        body: list[str] = []
        while index < len(lines) and (
            not lines[index].strip()
            or _indent_of(lines[index]) > indent
            or (on_first_line and _google_header(lines[index]) is None)
        ):
            body.append(lines[index])
            index += 1

        if section in _PARAM_SECTIONS:
            for first, continuation in _split_entries(body):
                match = _GOOGLE_ENTRY.match(first)
                if match is not None:
                    params[match['name'].lstrip('*')] = _entry_text(match['desc'], continuation)
        elif section in _RETURN_SECTIONS:
            text = _entry_text(inline, body)
            if (typed := _GOOGLE_RETURN_TYPE.match(text)) is not None:
                returns_type = typed.group().strip().rstrip(':').strip()
                text = text[typed.end() :]
            returns = text or None

    return ParsedDocstring(
        description=_join_description(description), params=params, returns=returns, returns_type=returns_type
    )


# --- NumPy ------------------------------------------------------------------------------------------------


def _numpy_header_at(lines: list[str], index: int) -> str | None:
    """Return the section name if `lines[index]` is a NumPy header (a known name underlined with dashes)."""
    if index + 1 >= len(lines) or not _NUMPY_UNDERLINE.match(lines[index + 1]):
        return None
    name = lines[index].strip().lower()
    return name if name in _ALL_SECTIONS else None


def _parse_numpy(lines: list[str]) -> ParsedDocstring:
    sections: list[tuple[str, list[str]]] = []
    description: list[str] = []
    index = 0
    while index < len(lines):
        name = _numpy_header_at(lines, index)
        if name is not None:
            sections.append((name, []))
            index += 2
            continue
        (sections[-1][1] if sections else description).append(lines[index])
        index += 1

    params: dict[str, str] = {}
    returns: str | None = None
    returns_type: str | None = None
    for name, body in sections:
        entries = _split_entries(body)
        if name in _PARAM_SECTIONS:
            for first, continuation in entries:
                names, _, _type = first.partition(':')
                text = _entry_text('', continuation)
                for param in names.split(','):
                    param = param.strip().lstrip('*')
                    if param.isidentifier():
                        params[param] = text
        elif name in _RETURN_SECTIONS:
            # An entry is `name : type` or just `type`, with the description indented below it; when there is
            # no description the type line is all the information there is.
            parts = [_entry_text('', continuation) or first for first, continuation in entries]
            returns = '\n'.join(part for part in parts if part) or None
            if entries:
                named, colon, written = entries[0][0].partition(':')
                returns_type = (written if colon else named).strip() or None

    return ParsedDocstring(
        description=_join_description(description), params=params, returns=returns, returns_type=returns_type
    )


# --- Sphinx -----------------------------------------------------------------------------------------------


def _parse_sphinx(lines: list[str]) -> ParsedDocstring:
    description: list[str] = []
    fields: list[tuple[str, str, str, list[str]]] = []
    field_indent = 0
    previous_blank = False
    for line in lines:
        match = _SPHINX_FIELD.match(line)
        if match is not None:
            fields.append((match['tag'].lower(), match['args'].strip(), match['desc'], []))
            field_indent = len(match['indent'])
        elif not fields:
            description.append(line)
        elif line.strip() and _indent_of(line) <= field_indent and previous_blank:
            # Unindented text after a blank line is no longer part of the field list.
            fields.append(('', '', '', []))
        else:
            fields[-1][3].append(line)
        previous_blank = not line.strip()

    params: dict[str, str] = {}
    returns: str | None = None
    returns_type: str | None = None
    for tag, args, first, continuation in fields:
        if tag in _SPHINX_PARAM_TAGS and args:
            # `:param name:` or `:param type name:`; the name is always the last word.
            name = args.split()[-1].lstrip('*')
            params[name] = _entry_text(first, continuation)
        elif tag in _SPHINX_RETURN_TAGS:
            returns = _entry_text(first, continuation) or None
        elif tag == 'rtype':
            returns_type = _entry_text(first, continuation) or None

    return ParsedDocstring(
        description=_join_description(description), params=params, returns=returns, returns_type=returns_type
    )


_PARSERS: dict[str, Callable[[list[str]], ParsedDocstring]] = {
    'google': _parse_google,
    'numpy': _parse_numpy,
    'sphinx': _parse_sphinx,
}
