"""Every relative link of the documentation points to a file that exists, and to a heading of it when it names one.

Links are read from the README, `docs/*.md` and the READMEs of `deploy/` and `bench/`, outside fenced blocks and
inline code. A heading's anchor is made as GitHub makes it: lower case, punctuation but `-` and `_` dropped, spaces
as `-`, and `-1`, `-2`, ... after a repeated one.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests._docs import ROOT, pages

PAGES = [*pages(), 'deploy/README.md', 'bench/README.md']

_FENCE = re.compile(r'^\s*```')
_LINK = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)\)')


def outside_fences(path: Path) -> list[tuple[int, str]]:
    """The lines of `path` outside fenced blocks, with their numbers."""
    lines: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def anchors(path: Path) -> set[str]:
    """The anchors of `path`'s headings (a heading's inline code is part of its anchor)."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for _, line in outside_fences(path):
        heading = re.match(r'#{1,6} (.+)$', line)
        if heading is None:
            continue
        slug = re.sub(r'[^\w\- ]', '', heading.group(1).strip().lower()).replace(' ', '-')
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f'{slug}-{count}')
    return found


def relative_links(page: str) -> list[tuple[int, str]]:
    path = ROOT / page
    return [
        (number, target)
        for number, line in outside_fences(path)
        for target in _LINK.findall(re.sub(r'`[^`]*`', '', line))
        if not re.match(r'[a-z][a-z0-9+.-]*:', target)  # http:, https:, mailto:
    ]


def test_the_readme_links_every_page_of_the_docs() -> None:
    linked = {target.partition('#')[0] for _, target in relative_links('README.md')}
    assert {page for page in pages() if page != 'README.md'} <= linked


@pytest.mark.parametrize('page', PAGES)
def test_every_relative_link_resolves(page: str) -> None:
    broken: list[str] = []
    for number, target in relative_links(page):
        file, _, anchor = target.partition('#')
        path = (ROOT / page).parent / file if file else ROOT / page
        if not path.exists():
            broken.append(f'{page}:{number}: {target}: no file {path.relative_to(ROOT)}')
        elif anchor and anchor not in anchors(path):
            broken.append(f'{page}:{number}: {target}: no heading with the anchor #{anchor} in {file or page}')
    assert broken == []
