"""Older `Agent(...)` keyword arguments that still work, with a warning, and a clear error for unknown ones.

`Agent.__init__` takes `**deprecated_kwargs` (as Pydantic AI's does) so that code written for older releases
keeps running; any name it does not know fails with a `UserError` listing them, rather than a `TypeError`.
"""

from __future__ import annotations

import warnings
from typing import Any

from .exceptions import UserError

__all__ = ('toolsets_from_deprecated_kwargs',)


def toolsets_from_deprecated_kwargs(kwargs: dict[str, Any]) -> list[Any]:
    """The toolsets given under older argument names (`mcp_servers`, now `toolsets`).

    Raises:
        UserError: if `kwargs` holds a name that is not an older argument of `Agent`.
    """
    kwargs = dict(kwargs)
    mcp_servers = kwargs.pop('mcp_servers', None)
    if kwargs:
        raise UserError(f'Unknown keyword arguments: {", ".join(f"`{name}`" for name in kwargs)}')
    if mcp_servers is None:
        return []
    # Two frames up is the caller of `Agent(...)`.
    warnings.warn('`mcp_servers` is deprecated, use `toolsets` instead.', DeprecationWarning, stacklevel=3)
    return list(mcp_servers)
