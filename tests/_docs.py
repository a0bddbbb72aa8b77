"""The documentation as the tests that run it read it: its pages, their sections and their fenced blocks.

A page is `README.md` or a file of `docs/`, named by its path from the repository's root (`'docs/chat.md'`). A
section is what follows a `## ` heading, up to the next `## ` or `# ` heading; a `### ` heading stays inside its
section. Headings are read outside fenced blocks only, so a shell comment in a block is never taken for one.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

__all__ = ('DOCS', 'ROOT', 'Block', 'blocks', 'commands', 'page_path', 'pages', 'section')

ROOT = Path(__file__).resolve().parents[1]
"""The repository."""

DOCS = ROOT / 'docs'
"""The folder of the documentation's pages."""

_FENCE = re.compile(r'^(?P<indent>\s*)```(?P<language>[\w+-]*)\s*$')


@dataclass(frozen=True)
class Block:
    """A fenced block of a page."""

    page: str
    """The page, as a path from the repository's root."""
    section: str
    """The `## ` heading it sits under (`''` before the first)."""
    language: str
    """What follows the opening fence (`''` for none)."""
    source: str
    """Its text, without the fences (and without the fence's indentation, for a block in a list item)."""
    line: int
    """The line of its opening fence, from 1."""


def pages() -> list[str]:
    """Every page: the README, then `docs/*.md`."""
    return ['README.md', *sorted(f'docs/{path.name}' for path in DOCS.glob('*.md'))]


def page_path(page: str) -> Path:
    """The file of `page`."""
    return ROOT / page


def blocks(page: str, language: str | None = None, *, section: str | None = None) -> list[Block]:
    """The fenced blocks of `page` in order, only those in `language` and under `section` if given.

    Raises:
        AssertionError: if a fence is left open, or `section` is not a section of the page.
    """
    found: list[Block] = []
    heading = ''
    headings = {''}
    lines = page_path(page).read_text().splitlines()
    number = 0
    while number < len(lines):
        line = lines[number]
        number += 1
        fence = _FENCE.match(line)
        if fence is None:
            if line.startswith('## '):
                heading = line[3:].strip()
                headings.add(heading)
            elif line.startswith('# '):
                heading = ''
            continue
        opened, indent = number, fence.group('indent')
        body: list[str] = []
        while number < len(lines) and lines[number].strip() != '```':
            body.append(lines[number].removeprefix(indent))
            number += 1
        assert number < len(lines), f'{page}:{opened}: a fenced block is never closed'
        number += 1
        found.append(Block(page, heading, fence.group('language'), ''.join(f'{text}\n' for text in body), opened))
    assert section is None or section in headings, f'{page} has no section "## {section}"'
    return [
        block
        for block in found
        if (language is None or block.language == language) and (section is None or block.section == section)
    ]


def section(page: str, heading: str) -> str:
    """The text of the section `## heading` of `page`.

    Raises:
        AssertionError: if the page has no such section.
    """
    kept: list[str] | None = None
    fenced = False
    for line in page_path(page).read_text().splitlines():
        if not fenced and line.startswith(('# ', '## ')):
            if kept is not None:
                break
            if line == f'## {heading}':
                kept = []
                continue
        if _FENCE.match(line) or (fenced and line.strip() == '```'):
            fenced = not fenced
        if kept is not None:
            kept.append(line)
    assert kept is not None, f'{page} has no section "## {heading}"'
    return ''.join(f'{line}\n' for line in kept)


def commands(source: str) -> list[str]:
    """The commands of a shell block: one per line, a line ending in `\\` or inside quotes continuing it."""
    found: list[str] = []
    current = ''
    for line in source.splitlines():
        current += line + '\n'
        try:
            complete = not current.rstrip().endswith('\\') and bool(shlex.split(current, comments=True))
        except ValueError:  # inside a quoted string that continues on the next line
            continue
        if complete:
            found.append(current.strip())
            current = ''
        elif not current.rstrip().endswith('\\'):
            current = ''  # a blank or comment-only line
    return found
