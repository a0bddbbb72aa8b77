"""`BuiltinTool` (and its newer name `NativeTool`): one native tool registered with the agent."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent._tool import AgentDepsT
from agent.builtin_tools import builtin_tool_from_spec

from ._abstract import AbstractCapability
from ._types import AgentBuiltinTool

__all__ = ('BuiltinTool', 'NativeTool')


@dataclass
class BuiltinTool(AbstractCapability[AgentDepsT]):
    """Registers a native (provider-executed) tool, or a function choosing one for each step.

    ```python
    agent = Agent('anthropic:claude-sonnet-4-6', capabilities=[BuiltinTool(CodeExecutionTool())])
    ```

    The model must support the tool: a request to one that does not fails with a `UserError`. For a tool
    that falls back to a local implementation, use `BuiltinOrLocalTool` (or `WebSearch`, `WebFetch`, ...).

    In an agent spec, name the tool's kind and its fields: `- BuiltinTool: code_execution` or
    `- BuiltinTool: {kind: web_search, max_uses: 3}`.
    """

    tool: AgentBuiltinTool[AgentDepsT]
    """The native tool, or a function of the `RunContext` returning one (or `None` to omit it) per step."""

    def get_builtin_tools(self) -> Sequence[AgentBuiltinTool[AgentDepsT]]:
        return [self.tool]

    @classmethod
    def from_spec(cls, kind: str, **fields: Any) -> BuiltinTool[Any]:
        """Build from a spec entry: the native tool's `kind` and its fields."""
        return cls(builtin_tool_from_spec(kind, **fields))


@dataclass
class NativeTool(BuiltinTool[AgentDepsT]):
    """`BuiltinTool` under its newer name: registers a native (provider-executed) tool."""
