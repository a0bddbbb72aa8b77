"""Tool results that cross from the tool activity to the workflow with their types intact.

A tool may return a `ToolReturn` (a value for the model plus content and metadata) or multi-modal content
(`BinaryContent`, `ImageUrl`, ...), alone or in a list. As JSON these are plain objects; the activity says which
kind of result it sent, so the workflow rebuilds the same objects an in-process run would have.
"""

from __future__ import annotations

from typing import Any, Literal

import pydantic

from agent._content import BinaryContent, FileUrl, ToolReturn
from agent._parts import revive_content

__all__ = ('ResultKind', 'decode_tool_result', 'result_kind')

ResultKind = Literal['value', 'tool-return', 'content', 'content-list']

_TOOL_RETURN: pydantic.TypeAdapter[ToolReturn] = pydantic.TypeAdapter(ToolReturn)


def _is_content(value: Any) -> bool:
    return isinstance(value, (FileUrl, BinaryContent))


def result_kind(result: Any) -> ResultKind:
    """How the workflow must rebuild `result` after it crossed as JSON."""
    if isinstance(result, ToolReturn):
        return 'tool-return'
    if _is_content(result):
        return 'content'
    if isinstance(result, (list, tuple)) and any(_is_content(item) for item in result):
        return 'content-list'
    return 'value'


def decode_tool_result(value: Any, kind: ResultKind) -> Any:
    """The result as the tool returned it, from its JSON form."""
    if kind == 'tool-return':
        return _TOOL_RETURN.validate_python(value)
    if kind in ('content', 'content-list'):
        return revive_content(value)
    return value
