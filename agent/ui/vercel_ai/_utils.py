"""Helpers shared by the Vercel AI stream and message mappings."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

import pydantic_core
from pydantic import TypeAdapter, ValidationError

from agent._parts import ModelMessage
from agent._tool_parts import BaseToolReturnPart
from agent._utils import is_str_dict

from ._models import ProviderMetadata
from .request_types import (
    DynamicToolApprovalRespondedPart,
    ToolApprovalResponded,
    ToolApprovalRespondedPart,
    UIMessage,
)

__all__ = (
    'PROVIDER_METADATA_KEY',
    'apply_message_metadata',
    'dump_message_metadata',
    'dump_provider_metadata',
    'iter_tool_approval_responses',
    'load_provider_metadata',
    'tool_return_output',
)

PROVIDER_METADATA_KEY = 'pydantic_ai'
"""The key under which part ids, provider names/details and signatures travel in a part's provider metadata, and
the message timestamp in a message's metadata.

It is Pydantic AI's key, so UI messages stored by a Pydantic AI backend load here with their part ids and
signatures, and messages stored here load there: one history format for both.
"""

_LEGACY_METADATA_KEY = 'durable_agents'
"""The key earlier versions wrote instead; messages stored with it still load."""


def dump_provider_metadata(wrapper_key: str | None = PROVIDER_METADATA_KEY, **fields: Any) -> dict[str, Any] | None:
    """The non-`None` fields, wrapped under `wrapper_key` (unwrapped when it is `None`); `None` when there are none."""
    kept = {key: value for key, value in fields.items() if value is not None}
    if not kept:
        return None
    return {wrapper_key: kept} if wrapper_key else kept


def load_provider_metadata(metadata: ProviderMetadata | None) -> dict[str, Any]:
    """Our fields from a part's provider metadata (an empty dict when absent or not an object)."""
    metadata = metadata or {}
    ours = metadata.get(PROVIDER_METADATA_KEY, metadata.get(_LEGACY_METADATA_KEY))
    return ours if isinstance(ours, dict) else {}


_TIMESTAMP = TypeAdapter(datetime)


def dump_message_metadata(message: ModelMessage) -> dict[str, Any]:
    """A UI message's metadata for an agent message: its application `metadata`, and its timestamp under our key.

    Only the timestamp travels: message metadata is the client's to send back, so fields such as a provider's
    response id must not come from it (a forged one could continue another user's provider-side conversation).
    """
    metadata = dict(message.metadata or {})
    if message.timestamp is not None:
        metadata[PROVIDER_METADATA_KEY] = {'timestamp': _TIMESTAMP.dump_python(message.timestamp, mode='json')}
    return metadata


def apply_message_metadata(message: ModelMessage, metadata: object) -> None:
    """Put a UI message's metadata back on the agent message loaded from it (see `dump_message_metadata`).

    The application's keys replace `message.metadata` when there are any (several UI messages can make one
    request, and only one of them carries them); an unreadable timestamp is ignored.
    """
    if not is_str_dict(metadata):
        return
    ours = metadata.get(PROVIDER_METADATA_KEY, metadata.get(_LEGACY_METADATA_KEY))
    if application := {k: v for k, v in metadata.items() if k not in (PROVIDER_METADATA_KEY, _LEGACY_METADATA_KEY)}:
        message.metadata = application
    if is_str_dict(ours) and (stamp := ours.get('timestamp')) is not None:
        with contextlib.suppress(ValidationError):  # a client's unreadable timestamp leaves the message's own
            message.timestamp = _TIMESTAMP.validate_python(stamp)


def string_field(fields: dict[str, Any], key: str) -> str | None:
    """`fields[key]` when it is a string: provider metadata comes from the client, so types are not trusted."""
    value = fields.get(key)
    return value if isinstance(value, str) else None


def dict_field(fields: dict[str, Any], key: str) -> dict[str, Any] | None:
    """`fields[key]` when it is an object (see `string_field`)."""
    value = fields.get(key)
    return value if isinstance(value, dict) else None  # pyright: ignore[reportUnknownVariableType]


def tool_return_output(part: BaseToolReturnPart) -> Any:
    """A tool result as JSON for a tool part's `output` (multi-modal content keeps its `kind` to come back)."""
    return pydantic_core.to_jsonable_python(part.content, fallback=repr, bytes_mode='base64')


def iter_tool_approval_responses(messages: Iterable[UIMessage]) -> Iterator[tuple[str, ToolApprovalResponded]]:
    """The user's answers to approval requests in assistant messages, as `(tool call id, answer)`, in order.

    Only parts still in the `approval-responded` state count: a denial already shown as `output-denied` is part
    of the loaded history and must not be answered a second time.
    """
    for message in messages:
        if message.role != 'assistant':
            continue
        for part in message.parts:
            if isinstance(part, ToolApprovalRespondedPart | DynamicToolApprovalRespondedPart) and isinstance(
                part.approval, ToolApprovalResponded
            ):
                yield part.tool_call_id, part.approval
