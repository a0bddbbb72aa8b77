"""Small helpers for provider wire formats: reading decoded JSON defensively and assembling request bodies.

Provider responses are read as plain decoded JSON rather than validated models, so a field a provider adds
or leaves out never breaks a run: `as_dict`/`as_list`/`as_int` give an empty value for anything unexpected.
"""

from __future__ import annotations

from typing import Any, cast

from agent._parts import ModelMessage, ModelRequest
from agent.settings import ModelSettings

from ._request_parameters import ModelRequestParameters

__all__ = (
    'as_dict',
    'as_int',
    'as_list',
    'drop_none',
    'join_instructions',
    'last_instructions',
    'prompted_output_instructions',
    'with_extras',
)


def last_instructions(messages: list[ModelMessage]) -> str | None:
    """The instructions of the latest request (each request an agent makes carries the instructions in force).

    A latest request without instructions that only returns tool results or retry prompts (as one built by hand
    for a direct request may) answers the request before it, whose instructions then still hold.
    """
    requests = [message for message in reversed(messages) if isinstance(message, ModelRequest)][:2]
    if not requests:
        return None
    latest = requests[0]
    if latest.instructions is not None or len(requests) < 2:
        return latest.instructions
    if all(part.part_kind in ('tool-return', 'retry-prompt') for part in latest.parts):
        return requests[1].instructions
    return None


def prompted_output_instructions(params: ModelRequestParameters) -> str | None:
    """Instructions asking for the output object (`'prompted'` mode, or `'native'` where the profile wants them)."""
    if params.output_mode not in ('prompted', 'native'):
        return None
    return params.prompted_output_instructions


def join_instructions(*texts: str | None) -> str | None:
    """Non-empty texts joined by blank lines, or `None`."""
    kept = [text for text in texts if text]
    return '\n\n'.join(kept) if kept else None


def with_extras(body: dict[str, Any], settings: ModelSettings) -> dict[str, Any]:
    """`body` with the `extra_body` setting merged over it (top-level keys)."""
    extra = settings.get('extra_body')
    if isinstance(extra, dict):
        return {**body, **cast('dict[str, Any]', extra)}
    return body


def drop_none(values: dict[str, Any]) -> dict[str, Any]:
    """`values` without the keys whose value is `None`."""
    return {key: value for key, value in values.items() if value is not None}


def as_dict(value: Any) -> dict[str, Any]:
    """`value` if it is a dict (from decoded JSON), else an empty dict."""
    return cast('dict[str, Any]', value) if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """`value` if it is a list (from decoded JSON), else an empty list."""
    return cast('list[Any]', value) if isinstance(value, list) else []


def as_int(value: Any) -> int:
    """`value` if it is an int (from decoded JSON), else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
