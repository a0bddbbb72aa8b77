"""Deferred capabilities in a run: the catalog the model sees, and the loads a message history records.

A run with deferred capabilities gets two additions (see `agent._agent_run_setup`): the `load_capability` tool
(`agent.toolsets._deferred_capability_loader`) and a dynamic instruction listing every deferred capability with
its description. The catalog lists loaded capabilities too, on purpose: it sits at the start of every request,
so keeping it the same on every request keeps a provider's prompt cache valid across loads; a model that loads
a capability twice is told it is already available.

A load is remembered through the history: a `load_capability` call whose id could be read, answered by a
`load_capability` return, marks that capability loaded when a later run continues the conversation.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agent._instructions import render_instructions
from agent._parts import ModelMessage
from agent._run_context import RunContext
from agent._tool_parts import ToolCallPart, ToolReturnPart
from agent._typed_tool_parts import LoadCapabilityCallPart

__all__ = ('DEFERRED_CAPABILITY_CATALOG_PREFIX', 'loaded_capability_ids', 'render_deferred_capability_catalog')

DEFERRED_CAPABILITY_CATALOG_PREFIX = (
    'The following capabilities are deferred and can be loaded using the `load_capability` tool:'
)
"""The first line of the catalog of deferred capabilities."""


async def render_deferred_capability_catalog(ctx: RunContext[Any]) -> str:
    """The catalog: one `- id: description` line (or `- id`) per deferred capability of the run."""
    lines = [DEFERRED_CAPABILITY_CATALOG_PREFIX]
    for capability_id, capability in ctx.capabilities.items():
        if capability.defer_loading is not True:
            continue
        description = capability.get_description()
        text = await render_instructions([description], ctx) if description is not None else None
        lines.append(f'- {capability_id}: {text}' if text else f'- {capability_id}')
    return '\n'.join(lines)


def _is_load_part(part: object) -> bool:
    # Typed parts, and plain ones that came back through serialization with their `tool_kind`.
    return isinstance(part, ToolCallPart | ToolReturnPart) and part.tool_kind == 'capability-load'


def loaded_capability_ids(messages: Iterable[ModelMessage]) -> set[str]:
    """The ids of the capabilities whose `load_capability` calls in `messages` were answered."""
    requested: dict[str, str] = {}
    loaded: set[str] = set()
    for message in messages:
        for part in message.parts:
            if not _is_load_part(part):
                continue
            if isinstance(part, ToolCallPart):
                call = part if isinstance(part, LoadCapabilityCallPart) else _as_load_call(part)
                if (capability_id := call.capability_id) is not None:
                    requested[part.tool_call_id] = capability_id
            elif isinstance(part, ToolReturnPart) and (capability_id := requested.get(part.tool_call_id)):
                loaded.add(capability_id)
    return loaded


def _as_load_call(part: ToolCallPart) -> LoadCapabilityCallPart:
    return LoadCapabilityCallPart(args=part.args, tool_call_id=part.tool_call_id)
