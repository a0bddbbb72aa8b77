"""`PrefixTools`: namespaces the tools of another capability by prefixing their names."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent._tool import AgentDepsT

from ._abstract import AbstractCapability
from ._wrapper import WrapperCapability

if TYPE_CHECKING:
    from agent.toolsets import AgentToolset

__all__ = ('PrefixTools',)


@dataclass
class PrefixTools(WrapperCapability[AgentDepsT]):
    """Wraps a capability and offers its tools as `f'{prefix}_{name}'`, e.g. to compose two MCP servers.

    ```python
    capabilities = [PrefixTools(MCP(url='https://api1.example.com'), prefix='api1')]
    ```

    Everything else (hooks, instructions, settings, native tools) is delegated unchanged.
    """

    prefix: str
    """The prefix, joined to each tool name with an underscore."""

    def get_toolset(self) -> AgentToolset[AgentDepsT] | None:
        """The wrapped capability's toolset with prefixed tool names (a toolset function is wrapped too)."""
        toolset = self.wrapped.get_toolset()
        if toolset is None:
            return None
        from agent.toolsets import as_toolset

        return as_toolset(toolset).prefixed(self.prefix)

    @classmethod
    def from_spec(
        cls, capability: AbstractCapability[AgentDepsT] | str | Mapping[str, Any], prefix: str
    ) -> PrefixTools[AgentDepsT]:
        """Build from a spec entry `{capability: ..., prefix: ...}`; a nested spec entry is built first."""
        if not isinstance(capability, AbstractCapability):
            from agent._spec import build_capabilities

            capability = build_capabilities([capability])[0]
        return cls(capability, prefix=prefix)
