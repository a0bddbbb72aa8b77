"""Typed views of the tool call and return parts of two tool families: capability loading and tool search.

They are ordinary `ToolCallPart`/`ToolReturnPart`s (same `part_kind`, so histories holding them read back
anywhere) with the family's tool name and `tool_kind` filled in, and accessors for the family's argument and
result shapes. Code that only knows plain tool parts keeps working on them.
"""

from __future__ import annotations

import json
from dataclasses import KW_ONLY, dataclass, fields
from typing import Any, Literal, cast

from ._tool_parts import ToolCallPart, ToolPartKind, ToolReturnPart

__all__ = (
    'LOAD_CAPABILITY_TOOL_NAME',
    'SEARCH_TOOLS_NAME',
    'LoadCapabilityCallPart',
    'LoadCapabilityReturnPart',
    'ToolSearchCallPart',
    'ToolSearchReturnPart',
    'narrow_tool_call_part',
)

LOAD_CAPABILITY_TOOL_NAME = 'load_capability'
"""The tool a model calls to load a deferred capability."""

SEARCH_TOOLS_NAME = 'search_tools'
"""The local tool a model calls to discover deferred tools."""


def _parsed_args(args: str | dict[str, Any] | None) -> dict[str, Any] | None:
    if isinstance(args, dict):
        return args
    if not args:
        return None
    try:
        value = json.loads(args)
    except ValueError:  # still streaming, or not JSON
        return None
    return cast('dict[str, Any]', value) if isinstance(value, dict) else None


@dataclass(repr=False)
class LoadCapabilityCallPart(ToolCallPart):
    """A call of the `load_capability` tool; `args` is `{'id': <capability id>}`."""

    tool_name: str = LOAD_CAPABILITY_TOOL_NAME
    _: KW_ONLY
    tool_kind: Literal['tool-search', 'capability-load'] | None = 'capability-load'

    @property
    def typed_args(self) -> dict[str, Any] | None:
        """The arguments as a dict, or `None` while they are not (yet) a JSON object."""
        return _parsed_args(self.args)

    @property
    def capability_id(self) -> str | None:
        """The id of the capability being loaded, once the arguments name one."""
        value = (self.typed_args or {}).get('id')
        return value if isinstance(value, str) else None


@dataclass(repr=False)
class LoadCapabilityReturnPart(ToolReturnPart):
    """The result of loading a capability; `content` may carry the capability's `instructions`."""

    tool_name: str = LOAD_CAPABILITY_TOOL_NAME
    content: Any = None
    _: KW_ONLY
    tool_kind: Literal['tool-search', 'capability-load'] | None = 'capability-load'

    @property
    def instructions(self) -> str | None:
        """The loaded capability's instructions, if the result includes them."""
        content: Any = self.content
        value = cast('dict[str, Any]', content).get('instructions') if isinstance(content, dict) else None
        return value if isinstance(value, str) else None


@dataclass(repr=False)
class ToolSearchCallPart(ToolCallPart):
    """A call of the local `search_tools` tool; `args` is `{'queries': [...]}`."""

    tool_name: str = SEARCH_TOOLS_NAME
    _: KW_ONLY
    tool_kind: Literal['tool-search', 'capability-load'] | None = 'tool-search'

    @property
    def typed_args(self) -> dict[str, Any] | None:
        """The arguments as a dict, or `None` while they are not (yet) a JSON object."""
        return _parsed_args(self.args)


@dataclass(repr=False)
class ToolSearchReturnPart(ToolReturnPart):
    """The result of a local tool search; `content` is `{'discovered_tools': [{'name': ..., ...}, ...]}`."""

    tool_name: str = SEARCH_TOOLS_NAME
    content: Any = None
    _: KW_ONLY
    tool_kind: Literal['tool-search', 'capability-load'] | None = 'tool-search'


_CALL_PARTS: dict[str, type[ToolCallPart]] = {
    'capability-load': LoadCapabilityCallPart,
    'tool-search': ToolSearchCallPart,
}


def narrow_tool_call_part(part: ToolCallPart, tool_kind: ToolPartKind) -> ToolCallPart:
    """`part` as the typed call part of `tool_kind` (the same fields, with `tool_kind` set)."""
    typed = _CALL_PARTS.get(tool_kind)
    if typed is None or type(part) is typed:
        return part
    values = {f.name: getattr(part, f.name) for f in fields(part) if f.init and f.name != 'tool_kind'}
    return typed(**values, tool_kind=tool_kind)
