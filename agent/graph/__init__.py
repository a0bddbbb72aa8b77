"""Graph primitives used by the agent graph: `BaseNode`, the base of its nodes, and `End`, which stops the run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic

from typing_extensions import TypeVar

from ._base_node import BaseNode

__all__ = ('BaseNode', 'End')

RunEndT = TypeVar('RunEndT', default=None, covariant=True)


@dataclass
class End(Generic[RunEndT]):
    """Returned by a node to end the graph run with `data` as its result."""

    data: RunEndT
    """The run's result (for the agent graph, a `FinalResult`)."""
