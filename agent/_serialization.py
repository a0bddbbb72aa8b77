"""Checking that values which must cross a process boundary (durable runs) can be serialized."""

from __future__ import annotations

from typing import Any

import pydantic

from .exceptions import UserError

__all__ = ('serializable_deps_adapter',)


def serializable_deps_adapter(deps_type: Any, *, agent_name: str | None = None) -> pydantic.TypeAdapter[Any]:
    """A JSON adapter for an agent's `deps_type`, for runs whose deps travel as data (e.g. durable runs).

    Raises:
        UserError: if pydantic cannot serialize the type, naming the type and saying what to use instead.
    """
    try:
        adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(deps_type)
        adapter.json_schema()
    except (pydantic.PydanticSchemaGenerationError, pydantic.PydanticInvalidForJsonSchema, TypeError) as exc:
        owner = f' of agent {agent_name!r}' if agent_name else ''
        name = getattr(deps_type, '__qualname__', repr(deps_type))
        raise UserError(
            f'The deps_type{owner} ({name}) cannot be serialized, but deps must travel as data here. '
            'Use a dataclass, TypedDict or pydantic model of serializable fields, and build clients '
            '(HTTP sessions, database pools) inside tools instead of passing them in deps.'
        ) from exc
    return adapter
