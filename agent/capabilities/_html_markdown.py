"""A small HTML to Markdown converter on the standard library's `html.parser`, for fetched web pages.

It keeps what a model reads a page for (headings, paragraphs, links, emphasis, code, lists, quotes, simple
tables, image alt text) and drops what it does not (scripts, styles, navigation chrome is kept as text).
Markup that nests a construct inside itself (a link inside a heading, a list inside a quote) is handled by
giving each open construct its own buffer, rendered when it closes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urljoin

__all__ = ('html_to_markdown',)

_SKIPPED = frozenset({'script', 'style', 'noscript', 'template', 'svg', 'iframe', 'canvas', 'object', 'head'})
_BLOCKS = frozenset(
    {
        'p', 'div', 'section', 'article', 'header', 'footer', 'main', 'nav', 'aside', 'form', 'figure',
        'figcaption', 'dl', 'dt', 'dd', 'address', 'details', 'summary', 'body', 'html',
    }
)  # fmt: skip
_FRAMED = frozenset({'a', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'code', 'strong', 'b', 'em', 'i', 'li'})
_FRAMED_BLOCKS = frozenset({'blockquote', 'ul', 'ol', 'table', 'tr', 'td', 'th'})
_INLINE = frozenset({'a', 'code', 'strong', 'b', 'em', 'i'})
_VOID = frozenset({'br', 'hr', 'img', 'input', 'meta', 'link', 'area', 'base', 'col', 'embed', 'source', 'wbr'})


@dataclass
class _Frame:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict[str, str])
    parts: list[str] = field(default_factory=list[str])
    items: int = 0
    """Items seen so far, for ordered lists; rows seen so far, for tables."""


class _Converter(HTMLParser):
    def __init__(self, base_url: str | None) -> None:
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        self.stack: list[_Frame] = [_Frame('document')]
        self.skip_depth = 0
        self.title: str | None = None
        self._in_title = False

    # Output helpers.

    @property
    def out(self) -> list[str]:
        return self.stack[-1].parts

    def _in(self, tag: str) -> bool:
        return any(frame.tag == tag for frame in self.stack)

    def _block_break(self) -> None:
        self.out.append('\n\n')

    def _url(self, value: str | None) -> str:
        return urljoin(self.base_url, value) if self.base_url and value else value or ''

    # Parser callbacks.

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == 'title':
            self._in_title = True
            return
        if tag in _SKIPPED or self.skip_depth:
            if tag not in _VOID:
                self.skip_depth += 1
            return
        values = {key: value or '' for key, value in attrs}
        if tag == 'br':
            self.out.append('\n')
        elif tag == 'hr':
            self.out.append('\n\n---\n\n')
        elif tag == 'img':
            alt = values.get('alt', '').strip()
            if alt:
                self.out.append(f'![{alt}]({self._url(values.get("src"))})')
        elif tag in _FRAMED or tag in _FRAMED_BLOCKS:
            if tag in ('ul', 'ol') and self._in('li'):
                self.out.append('\n')  # a nested list continues its item
            elif tag in ('blockquote', 'ul', 'ol', 'table', 'pre') or tag[0] == 'h':
                self._block_break()
            if tag == 'li':
                lists = [frame for frame in self.stack if frame.tag in ('ul', 'ol')]
                if lists:
                    lists[-1].items += 1
            self.stack.append(_Frame(tag, values))
        elif tag in _BLOCKS:
            self._block_break()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == 'title':
            self._in_title = False
            return
        if self.skip_depth:
            if tag in _SKIPPED or tag not in _VOID:
                self.skip_depth -= 1
            return
        if tag in _FRAMED or tag in _FRAMED_BLOCKS:
            if not any(frame.tag == tag for frame in self.stack[1:]):
                return  # a stray end tag
            while self.stack[-1].tag != tag:  # close what the page left open inside it
                self._close(self.stack.pop())
            self._close(self.stack.pop())
        elif tag in _BLOCKS:
            while self.stack[-1].tag in _INLINE:  # inline markup left open ends with its block
                self._close(self.stack.pop())
            self._block_break()

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title = (self.title or '') + data
            return
        if self.skip_depth:
            return
        if self._in('pre'):
            self.out.append(data)
            return
        text = re.sub(r'\s+', ' ', data)
        if not self.out or self.out[-1].endswith('\n'):
            text = text.lstrip()
        if text:
            self.out.append(text)

    def close(self) -> None:
        super().close()
        while len(self.stack) > 1:
            self._close(self.stack.pop())

    # Rendering a closed construct into its parent.

    def _close(self, frame: _Frame) -> None:
        inner = ''.join(frame.parts)
        text = inner.strip()
        tag = frame.tag
        parent = self.stack[-1]
        if tag == 'a':
            href = self._url(frame.attrs.get('href'))
            rendered = f'[{text}]({href})' if text and href and not href.startswith('javascript:') else text
        elif tag[0] == 'h' and tag[1:].isdigit():
            rendered = f'{"#" * int(tag[1:])} {" ".join(text.split())}\n\n' if text else ''
        elif tag == 'pre':
            rendered = f'```\n{inner.strip(chr(10))}\n```\n\n'
        elif tag == 'code':
            rendered = inner if self._in('pre') else (f'`{text}`' if text else '')
        elif tag in ('strong', 'b'):
            rendered = f'**{text}**' if text else ''
        elif tag in ('em', 'i'):
            rendered = f'*{text}*' if text else ''
        elif tag == 'li':
            rendered = self._list_item(text)
        elif tag == 'blockquote':
            rendered = '\n'.join(f'> {line}'.rstrip() for line in _tidy(inner).splitlines()) + '\n\n'
        elif tag in ('td', 'th'):
            rendered = ' '.join(text.split()).replace('|', '\\|') + '\x00'
        elif tag == 'tr':
            rendered = self._table_row(parent, [cell for cell in inner.split('\x00')[:-1]])
        else:  # ul, ol, table
            rendered = inner.strip('\n') + '\n\n'
        if rendered and parent.parts and tag in _INLINE:
            previous = parent.parts[-1]
            if previous and not previous[-1].isspace() and inner[:1].isspace():
                rendered = ' ' + rendered
        parent.parts.append(rendered)

    def _list_item(self, text: str) -> str:
        lists = [frame for frame in self.stack if frame.tag in ('ul', 'ol')]
        marker = f'{lists[-1].items}.' if lists and lists[-1].tag == 'ol' else '-'
        # Continuation lines (a nested list included) are indented under the item's text.
        pad = ' ' * (len(marker) + 1)
        lines = _tidy(text).splitlines() or ['']
        body = [f'{marker} {lines[0]}', *(f'{pad}{line}' if line else '' for line in lines[1:])]
        parent = self.stack[-1].parts
        return ('\n' if parent and not parent[-1].endswith('\n') else '') + '\n'.join(body) + '\n'

    @staticmethod
    def _table_row(parent: _Frame, cells: list[str]) -> str:
        # The first row of a table (counted on the frame receiving the rows) is its header.
        parent.items += 1
        row = '| ' + ' | '.join(cells) + ' |\n'
        if parent.items == 1:
            row += '| ' + ' | '.join('---' for _ in cells) + ' |\n'
        return row


def _tidy(text: str) -> str:
    lines = [line.rstrip() for line in text.splitlines()]
    return re.sub(r'\n{3,}', '\n\n', '\n'.join(lines)).strip('\n')


def html_to_markdown(html: str, *, base_url: str | None = None) -> str:
    """Convert an HTML document to Markdown, with the page title (if any) as a top-level heading.

    Args:
        html: The document.
        base_url: The document's URL, against which relative links and image sources are resolved.
    """
    converter = _Converter(base_url)
    converter.feed(html)
    converter.close()
    body = _tidy(''.join(converter.stack[0].parts))
    title = ' '.join((converter.title or '').split())
    if title and not body.startswith('# '):
        body = f'# {title}\n\n{body}' if body else f'# {title}'
    return body
