"""`Toolset`: an existing toolset (or toolset function) offered as a capability."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent._tool import AgentDepsT

from ._abstract import AbstractCapability

if TYPE_CHECKING:
    from agent.toolsets import AgentToolset

__all__ = ('Toolset',)


@dataclass
class Toolset(AbstractCapability[AgentDepsT]):
    """Provides the given toolset's tools, e.g. to combine them with `PrefixTools` or hooks."""

    toolset: AgentToolset[AgentDepsT]
    """A toolset, or a function of the `RunContext` building one per run step."""

    @classmethod
    def get_serialization_name(cls) -> str | None:
        # Takes a toolset object, which an agent spec cannot express.
        return None

    def get_toolset(self) -> AgentToolset[AgentDepsT] | None:
        return self.toolset
