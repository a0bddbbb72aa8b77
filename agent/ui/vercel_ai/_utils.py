"""Helpers shared by the Vercel AI stream and message mappings."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pydantic_core

from agent._tool_parts import BaseToolReturnPart

from ._models import ProviderMetadata
from .request_types import (
    DynamicToolApprovalRespondedPart,
    ToolApprovalResponded,
    ToolApprovalRespondedPart,
    UIMessage,
)

__all__ = (
    'PROVIDER_METADATA_KEY',
    'dump_provider_metadata',
    'iter_tool_approval_responses',
    'load_provider_metadata',
    'tool_return_output',
)

PROVIDER_METADATA_KEY = 'durable_agents'
"""The key under which part ids, provider names/details and signatures travel in a part's provider metadata."""

_PYDANTIC_AI_METADATA_KEY = 'pydantic_ai'
"""Where Pydantic AI's adapter keeps the same fields, so UI messages its front ends stored load here too."""


def dump_provider_metadata(**fields: Any) -> ProviderMetadata | None:
    """The non-`None` fields wrapped under `PROVIDER_METADATA_KEY`, or `None` when there are none."""
    kept = {key: value for key, value in fields.items() if value is not None}
    return {PROVIDER_METADATA_KEY: kept} if kept else None


def load_provider_metadata(metadata: ProviderMetadata | None) -> dict[str, Any]:
    """Our fields from a part's provider metadata (an empty dict when absent or not an object).

    Fields under Pydantic AI's key are read when ours are absent (same names: `id`, `provider_name`, ...).
    """
    metadata = metadata or {}
    ours = metadata.get(PROVIDER_METADATA_KEY, metadata.get(_PYDANTIC_AI_METADATA_KEY))
    return ours if isinstance(ours, dict) else {}


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
            if isinstance(part, ToolApprovalRespondedPart | DynamicToolApprovalRespondedPart):
                yield part.tool_call_id, part.approval
