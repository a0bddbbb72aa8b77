"""`Capability`: instructions, tools and toolsets bundled as a capability, without writing a subclass."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from agent._instructions import InstructionSource, flatten_instructions
from agent._tool import AgentDepsT, Tool, ToolFuncEither
from agent.toolsets import AgentToolset, CombinedToolset, FunctionToolset, as_toolset

from ._abstract import AbstractCapability
from ._types import AgentInstructions, CapabilityDescription

__all__ = ('Capability',)


class Capability(AbstractCapability[AgentDepsT]):
    """Groups related instructions, function tools and toolsets under one capability.

    ```python
    weather = Capability(instructions='Give temperatures in Celsius.', tools=[get_forecast])

    @weather.tool_plain
    def get_alerts(region: str) -> list[str]:
        ...

    agent = Agent('openai:gpt-5.2', capabilities=[weather])
    ```

    For hooks, model settings or native tools, subclass `AbstractCapability` (or use `Hooks`).
    """

    toolsets: tuple[AgentToolset[AgentDepsT], ...]
    """Toolsets (or functions building them) the capability adds."""
    tools: Sequence[Tool[AgentDepsT] | ToolFuncEither[AgentDepsT, ...]]
    """The function tools given at construction (later ones are added with `@tool` / `@tool_plain`)."""
    description: CapabilityDescription[AgentDepsT] | None
    """What the capability does: a string, or a function computing it when the deferred catalog is rendered."""

    def __init__(
        self,
        *,
        instructions: AgentInstructions[AgentDepsT] = None,
        toolsets: Sequence[AgentToolset[AgentDepsT]] | None = None,
        tools: Sequence[Tool[AgentDepsT] | ToolFuncEither[AgentDepsT, ...]] = (),
        id: str | None = None,
        description: CapabilityDescription[AgentDepsT] | None = None,
        defer_loading: bool = False,
    ) -> None:
        """Bundle instructions, tools and toolsets.

        Args:
            instructions: Strings, `TemplateStr`s or functions (more can be added with `@instructions`).
            toolsets: Toolsets, or functions building one for each run step.
            tools: Function tools: `Tool` objects or functions.
            id: A stable name of the capability (required with `defer_loading=True`).
            description: What the capability does: a string, or a function (taking the `RunContext` or
                nothing) computing it.
            defer_loading: Keep the instructions and tools from the model until it loads the capability.
        """
        self.toolsets = tuple(toolsets or ())
        self.tools = tools
        self.id = id
        self.description = description  # pyright: ignore[reportIncompatibleVariableOverride]  # a function too
        self.defer_loading = defer_loading
        self._function_toolset = FunctionToolset[AgentDepsT](tools)
        self._instructions: list[InstructionSource] = flatten_instructions(instructions)

    def __repr__(self) -> str:
        return f'{type(self).__name__}(id={self.id!r}, tools={list(self._function_toolset.tools)!r})'

    @classmethod
    def get_serialization_name(cls) -> str | None:
        # Holds functions and toolset objects, which an agent spec cannot express.
        return None

    def get_instructions(self) -> AgentInstructions[AgentDepsT] | None:
        return list(self._instructions) or None

    def get_toolset(self) -> AgentToolset[AgentDepsT] | None:
        # Asked again for each run, so tools registered with `@tool` later reach the next run; with neither tools
        # nor toolsets yet, the (empty) function toolset itself, ready for them.
        parts: list[AgentToolset[AgentDepsT]] = [self._function_toolset] if self._function_toolset.tools else []
        parts.extend(self.toolsets)
        if len(parts) <= 1:
            return parts[0] if parts else self._function_toolset
        return CombinedToolset([as_toolset(part) for part in parts])

    def tool(self, func: Callable[..., Any] | None = None, /, **options: Any) -> Any:
        """Register a function taking the `RunContext` first as a tool: `@capability.tool` or `@...tool(...)`.

        The keyword arguments are those of `FunctionToolset.add_function`.
        """
        return self._function_toolset.tool(func, **options) if func else self._function_toolset.tool(**options)

    def tool_plain(self, func: Callable[..., Any] | None = None, /, **options: Any) -> Any:
        """Register a function that does not take the `RunContext` as a tool: `@capability.tool_plain`."""
        toolset = self._function_toolset
        return toolset.tool_plain(func, **options) if func else toolset.tool_plain(**options)

    def instructions(self, func: Callable[..., Any] | None = None, /) -> Any:
        """Register a function (sync or async, taking the `RunContext` or nothing) producing instructions.

        Use it as `@cap.instructions` or `@cap.instructions()`.
        """
        if func is None:
            return self.instructions
        self._instructions.append(cast(InstructionSource, func))
        return func
