"""Parsing the project's source in tests that read its structure (imports, layers), safely beside other threads.

CPython 3.11 before 3.11.8 keeps one recursion counter for building `ast` objects, shared by every thread: a parse
while another thread parses (the runtime reading a class's attribute docstrings for a tool built in a worker
thread left by an earlier test, or pytest rewriting a module imported in a thread) can fail with "AST constructor
recursion depth mismatch". The runtime takes `_SOURCE_READING` for its parses; these take it too, and parse once
more if a thread outside it still got in the way.
"""

from __future__ import annotations

import ast
from pathlib import Path

from agent._attribute_docstrings import _SOURCE_READING

__all__ = ('parse_file',)


def parse_file(path: Path) -> ast.Module:
    """The module `path` holds, parsed."""
    source = path.read_text()
    with _SOURCE_READING:
        try:
            return ast.parse(source, str(path))
        except SystemError as error:
            if 'recursion depth mismatch' not in str(error):
                raise
            return ast.parse(source, str(path))
