"""Reading native (provider-run) tool requests without depending on their classes.

`ModelRequestParameters.native_tools` holds objects with a `kind` string (`'web_search'`,
`'code_execution'`, `'web_fetch'`, `'image_generation'`, `'mcp_server'`) and kind-specific fields. Models
read those fields by name, so any object (or dict, as after crossing a process boundary) with the right
attributes works. `Model.prepare_request` has already dropped (or refused) the kinds a model does not support.
"""

from __future__ import annotations

from typing import Any, cast

__all__ = ('native_field', 'native_kind')


def native_kind(tool: Any) -> str:
    """The tool's `kind` (empty if it has none)."""
    kind = native_field(tool, 'kind')
    return kind if isinstance(kind, str) else ''


def native_field(tool: Any, name: str, default: Any = None) -> Any:
    """The tool's field `name` (attribute or dict key), or `default` when missing or `None`."""
    value = cast('dict[str, Any]', tool).get(name) if isinstance(tool, dict) else getattr(tool, name, None)
    return default if value is None else value
