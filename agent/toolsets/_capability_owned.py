"""Capability ids in a run: which id a capability instance was registered under for the current run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent._run_context import RunContext
    from agent.capabilities import AbstractCapability

__all__ = ('resolve_capability_id',)


def resolve_capability_id(ctx: RunContext[Any], capability: AbstractCapability[Any]) -> str:
    """The id under which `capability` (this very instance) is registered in `ctx.capabilities`.

    A capability without an explicit `id` is registered under one derived from its class name, so the id only
    exists as the key of that mapping.

    Raises:
        LookupError: when the capability is not one of the run's.
    """
    for capability_id, registered in ctx.capabilities.items():
        if registered is capability:
            return capability_id
    raise LookupError(f'{capability!r} is not one of the capabilities of this run')
