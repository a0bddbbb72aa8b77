"""`BaseNode`: the class every node of the agent graph derives from."""

from __future__ import annotations

from abc import ABC
from typing import Generic, Never

from typing_extensions import TypeVar

__all__ = ('BaseNode',)

StateT = TypeVar('StateT', default=None)
DepsT = TypeVar('DepsT', default=None, contravariant=True)
NodeRunEndT = TypeVar('NodeRunEndT', covariant=True, default=Never)


class BaseNode(ABC, Generic[StateT, DepsT, NodeRunEndT]):
    """A node of a graph run: the agent's `UserPromptNode`, `ModelRequestNode` and `CallToolsNode` derive from it.

    It lets code that iterates a run tell a node from the `End` that closes it (`isinstance(node, BaseNode)`) and
    name "any node" in annotations, as with Pydantic AI's graph library. The type parameters are the graph's state,
    its dependencies and the data of the `End` the graph can reach.

    Unlike that library's nodes, the agent's nodes run with `run(state, deps)` rather than a `GraphRunContext`:
    runs are advanced by `AgentRun` (in-process or inside a durable workflow), never by calling a node directly, so
    this class declares no `run` of its own.
    """
