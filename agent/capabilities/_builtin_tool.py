"""`BuiltinTool` (and its newer name `NativeTool`): one native tool registered with the agent."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent._tool import AgentDepsT
from agent.builtin_tools import AbstractBuiltinTool, builtin_tool_from_spec

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

    def get_native_tools(self) -> Sequence[AgentBuiltinTool[AgentDepsT]]:
        """The native tool (`get_builtin_tools` under Pydantic AI's later name)."""
        return self.get_builtin_tools()

    @classmethod
    def from_spec(
        cls, kind: str | None = None, *, tool: Mapping[str, Any] | AbstractBuiltinTool | None = None, **fields: Any
    ) -> BuiltinTool[Any]:
        """Build from a spec entry: the native tool's `kind` and its fields, or `tool={'kind': ..., ...}`.

        Raises:
            TypeError: when neither a kind nor a tool is given.
        """
        if isinstance(tool, AbstractBuiltinTool):
            return cls(tool)
        if tool is not None:
            fields = {**tool, **fields}
            kind = fields.pop('kind', kind)
        if kind is None:
            raise TypeError(f'{cls.__name__}.from_spec() requires either a `tool` argument or a native tool `kind`')
        return cls(builtin_tool_from_spec(kind, **fields))


@dataclass
class NativeTool(BuiltinTool[AgentDepsT]):
    """`BuiltinTool` under its newer name: registers a native (provider-executed) tool."""
