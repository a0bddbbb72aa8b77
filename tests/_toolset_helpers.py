"""Toolsets and a run-loop-style tool call shared by the toolset tests."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, cast

from agent._run_context import RunContext
from agent.toolsets import AbstractToolset, FunctionToolset, WrapperToolset
from agent.usage import RunUsage


def make_ctx(deps: Any = None, **changes: Any) -> RunContext[Any]:
    return RunContext(deps=deps, model=cast(Any, object()), usage=RunUsage(), **changes)


async def call(
    toolset: AbstractToolset[Any], name: str, args: dict[str, Any], ctx: RunContext[Any] | None = None
) -> Any:
    """Call a tool the way the run loop does: list the tools, then call through the tool's own toolset."""
    ctx = ctx or make_ctx()
    tool = (await toolset.get_tools(ctx))[name]
    return await tool.toolset.call_tool(name, args, replace(ctx, tool_name=name, tool_call_id='call-1'), tool)


def math_toolset(**options: Any) -> FunctionToolset[Any]:
    toolset = FunctionToolset[Any](**options)

    @toolset.tool_plain
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @toolset.tool_plain
    def neg(a: int) -> int:
        return -a

    return toolset


class RecordingToolset(FunctionToolset[Any]):
    """A function toolset that records when it is entered and exited."""

    def __init__(self, events: list[str], name: str, tools: list[Any] | None = None) -> None:
        super().__init__(tools or [], id=name)
        self.events = events

    async def __aenter__(self) -> RecordingToolset:
        self.events.append(f'enter {self.id}')
        return self

    async def __aexit__(self, *args: Any) -> None:
        self.events.append(f'exit {self.id}')


@dataclass
class LoggingToolset(WrapperToolset[Any]):
    """Prints each tool call, then passes it on to the wrapped toolset."""

    async def call_tool(self, tool_name: str, tool_args: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        print(f' Calling tool: {tool_name}')
        return await super().call_tool(tool_name, tool_args, *args, **kwargs)
