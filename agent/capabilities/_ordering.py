"""Ordering constraints between capabilities, and the sort that satisfies them.

Capabilities compose like middleware: the first in a `CombinedCapability` is the outermost layer (its
`before_*` hooks see inputs first, its `after_*` hooks see results last). A capability that must sit at an
edge of that chain, or around or inside another one, says so with `get_ordering()`; the combined capability
then sorts its parts to satisfy every constraint, keeping the order the user gave wherever constraints leave
a choice. A container (a combined or wrapper capability) is placed as one unit, with the merged constraints
of the leaf capabilities inside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from agent.exceptions import UserError

if TYPE_CHECKING:
    from ._abstract import AbstractCapability

__all__ = ('CapabilityOrdering', 'CapabilityPosition', 'CapabilityRef', 'collect_leaves', 'sort_capabilities')

CapabilityPosition: TypeAlias = Literal['outermost', 'innermost']
"""A fixed place in the chain: before every other capability, or after every other one."""

CapabilityRef: TypeAlias = 'type[AbstractCapability[Any]] | AbstractCapability[Any]'
"""Another capability, as a type (every instance of it or its subclasses) or one instance (by identity)."""


@dataclass
class CapabilityOrdering:
    """Where a capability must sit in the chain of capabilities it is combined with."""

    position: CapabilityPosition | None = None
    """`'outermost'` or `'innermost'` to pin the capability to an edge; `None` keeps the user's order."""

    wraps: Sequence[CapabilityRef] = ()
    """Capabilities this one must be outside of (listed before)."""

    wrapped_by: Sequence[CapabilityRef] = ()
    """Capabilities this one must be inside of (listed after)."""

    requires: Sequence[type[AbstractCapability[Any]]] = ()
    """Capability types that must be present among the combined ones; a missing one is a `UserError`."""


def collect_leaves(capability: AbstractCapability[Any]) -> list[AbstractCapability[Any]]:
    """The leaf capabilities of a capability tree, as its `apply()` visits them."""
    leaves: list[AbstractCapability[Any]] = []
    capability.apply(leaves.append)
    return leaves


def _merged_ordering(leaves: list[AbstractCapability[Any]]) -> CapabilityOrdering | None:
    orderings = [o for leaf in leaves if (o := leaf.get_ordering()) is not None]
    if not orderings:
        return None
    positions: set[CapabilityPosition] = {o.position for o in orderings if o.position is not None}
    if len(positions) > 1:
        raise UserError(
            f'Conflicting positions among nested leaves of one capability ({sorted(positions)}): give each '
            'position its own container, or list those capabilities side by side.'
        )
    return CapabilityOrdering(
        position=next(iter(positions), None),
        wraps=[ref for o in orderings for ref in o.wraps],
        wrapped_by=[ref for o in orderings for ref in o.wrapped_by],
        requires=[req for o in orderings for req in o.requires],
    )


def _matches(ref: CapabilityRef, leaves: list[AbstractCapability[Any]]) -> bool:
    if isinstance(ref, type):
        return any(isinstance(leaf, ref) for leaf in leaves)
    return any(leaf is ref for leaf in leaves)


def sort_capabilities(capabilities: Sequence[AbstractCapability[Any]]) -> list[AbstractCapability[Any]]:
    """The capabilities in an order satisfying their ordering constraints, otherwise in the given order.

    Raises:
        UserError: when a required capability type is missing, or the constraints contradict each other.
    """
    caps = list(capabilities)
    if len(caps) <= 1:
        return caps
    leaves = [collect_leaves(cap) for cap in caps]
    orderings = [_merged_ordering(group) for group in leaves]

    everything = [leaf for group in leaves for leaf in group]
    for cap, ordering in zip(caps, orderings, strict=True):
        for required in ordering.requires if ordering else ():
            if not any(isinstance(leaf, required) for leaf in everything):
                raise UserError(
                    f'`{type(cap).__name__}` requires `{required.__name__}`, which is not among the capabilities.'
                )

    # Edges point from an outer capability to the ones it must wrap. Nodes are added in the given order first,
    # so the sorter falls back to that order where no edge decides.
    sorter: TopologicalSorter[int] = TopologicalSorter()
    indices = range(len(caps))
    for i in indices:
        sorter.add(i)
    outermost = {i for i in indices if (o := orderings[i]) and o.position == 'outermost'}
    innermost = {i for i in indices if (o := orderings[i]) and o.position == 'innermost'}
    for i in indices:
        ordering = orderings[i]
        if ordering is None:
            continue
        for j in indices:
            if i == j:
                continue
            if i in outermost and j not in outermost:
                sorter.add(j, i)
            if i in innermost and j not in innermost:
                sorter.add(i, j)
            if any(_matches(ref, leaves[j]) for ref in ordering.wraps):
                sorter.add(j, i)
            if any(_matches(ref, leaves[j]) for ref in ordering.wrapped_by):
                sorter.add(i, j)
    try:
        order = list(sorter.static_order())
    except CycleError:
        raise UserError('Circular ordering constraints among the capabilities') from None
    return [caps[i] for i in order]
