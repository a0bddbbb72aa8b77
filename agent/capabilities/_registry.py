"""The capabilities of a run by id, and whether a deferred one is live.

A run registers every leaf of its capability tree (see `AbstractCapability.apply`) in `RunContext.capabilities`:
under its `id`, or, for a capability without one, under a name derived from its class (`PlainCap` ->
`plain_cap`, then `plain_cap_2`, ...) that no explicit id uses. A deferred capability (`defer_loading=True`)
needs an explicit id: the model loads it by that id, and a later run finds the load in the message history by
it. Ids are checked when the agent is built (for the capabilities it is given) and again when a run starts
(for those a run adds or a `for_run`/capability function returns).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from pydantic.alias_generators import to_snake

from agent._run_context import RunContext
from agent.exceptions import UserError

from ._abstract import AbstractCapability

__all__ = ('capability_is_live', 'check_agent_capability_ids', 'check_capability_ids', 'register_capabilities')


def check_capability_ids(capabilities: Iterable[AbstractCapability[Any]]) -> set[str]:
    """The explicit ids of `capabilities` (leaves), after checking them.

    Raises:
        UserError: a deferred capability has no id, or two capabilities share one.
    """
    explicit: set[str] = set()
    for capability in capabilities:
        if capability.defer_loading is True and capability.id is None:
            raise UserError(
                f'Deferred capabilities must use stable explicit `id` values: {capability!r} has '
                '`defer_loading=True` but no id. Pass `id=...` when using `defer_loading=True`.'
            )
        if capability.id is None:
            continue
        if capability.id in explicit:
            raise UserError(
                f'Capability id {capability.id!r} is used by multiple capabilities. '
                'Capability ids must be unique within a run.'
            )
        explicit.add(capability.id)
    return explicit


def check_agent_capability_ids(items: Iterable[object]) -> None:
    """Check the ids of the capabilities an agent is built with (functions are checked when a run calls them).

    Raises:
        UserError: as `check_capability_ids`.
    """
    leaves: list[AbstractCapability[Any]] = []
    for item in items:
        if isinstance(item, AbstractCapability):
            cast('AbstractCapability[Any]', item).apply(leaves.append)
    check_capability_ids(leaves)


def register_capabilities(capability: AbstractCapability[Any]) -> dict[str, AbstractCapability[Any]]:
    """The leaves of `capability` keyed by their run ids (explicit, or derived from the class name).

    Raises:
        UserError: as `check_capability_ids`.
    """
    leaves: list[AbstractCapability[Any]] = []
    capability.apply(leaves.append)
    explicit = check_capability_ids(leaves)
    by_id: dict[str, AbstractCapability[Any]] = {}
    for leaf in leaves:
        capability_id = leaf.id
        if capability_id is None:
            base = to_snake(type(leaf).__name__)
            capability_id, suffix = base, 2
            while capability_id in by_id or capability_id in explicit:
                capability_id, suffix = f'{base}_{suffix}', suffix + 1
        by_id[capability_id] = leaf
    return by_id


def capability_is_live(capability: AbstractCapability[Any], ctx: RunContext[Any]) -> bool:
    """Whether `capability` contributes to the run now: it is not deferred, or the model has loaded it."""
    if capability.defer_loading is not True:
        return True
    return capability.id is not None and capability.id in ctx.loaded_capability_ids
