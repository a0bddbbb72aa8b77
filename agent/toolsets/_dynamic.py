"""`DynamicToolset`: a toolset built by a function of the run context, for each run or each run step.

The built toolset lives for one run (or one step): when it is replaced, or when the run ends, it is exited if
it was entered. The dynamic toolset therefore holds per-run state, so `for_run` gives each run its own copy.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any, Self, cast

from agent._run_context import RunContext
from agent._threads import call_maybe_async
from agent._tool import AgentDepsT
from agent.exceptions import UserError

from .abstract import AbstractToolset, AgentToolset, ToolsetFunc, ToolsetInstructions, ToolsetTool

__all__ = ('DynamicToolset', 'as_toolset')


class DynamicToolset(AbstractToolset[AgentDepsT]):
    """A toolset produced by a function of the run context.

    The tools it returns name the dynamic toolset as their `toolset`, so calls are routed to whichever toolset
    the function produced for the current step.
    """

    toolset_func: ToolsetFunc[AgentDepsT]
    """Builds the toolset (sync or async); `None` means no tools."""
    per_run_step: bool
    """Whether to build the toolset again for each run step, rather than once per run."""

    def __init__(
        self, toolset_func: ToolsetFunc[AgentDepsT], per_run_step: bool = True, *, id: str | None = None
    ) -> None:
        """Create a dynamic toolset.

        Args:
            toolset_func: Builds the toolset from the run context, sync or async; `None` means no tools.
            per_run_step: Build the toolset again for each run step, rather than once per run.
            id: A stable identifier of the toolset.
        """
        self.toolset_func = toolset_func
        self.per_run_step = per_run_step
        self._id = id
        self._lock = asyncio.Lock()
        self._entered_count = 0
        self._toolset: AbstractToolset[AgentDepsT] | None = None
        self._toolset_entered = False
        self._built_at_step: int | None = None

    @property
    def id(self) -> str | None:
        """The identifier given at construction."""
        return self._id

    @property
    def label(self) -> str:
        """The class name, with the id or the building function's name."""
        if self._id is not None:
            return super().label
        return f'{type(self).__name__}({getattr(self.toolset_func, "__name__", repr(self.toolset_func))})'

    @property
    def toolset(self) -> AbstractToolset[AgentDepsT] | None:
        """The toolset built for the current run or step, if any."""
        return self._toolset

    def copy(self) -> DynamicToolset[AgentDepsT]:
        """A fresh dynamic toolset with the same function and settings and no built toolset."""
        return DynamicToolset(self.toolset_func, self.per_run_step, id=self._id)

    async def for_run(self, ctx: RunContext[AgentDepsT]) -> AbstractToolset[AgentDepsT]:
        """A fresh copy for the run, so runs of one agent that overlap never share a built toolset."""
        return self.copy()

    async def __aenter__(self) -> Self:
        """Start a run: the toolset is built afresh and entered while the dynamic toolset is entered."""
        async with self._lock:
            if self._entered_count == 0:
                await self._release(None, None, None)
            self._entered_count += 1
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        """End the run: exit and forget the built toolset when the outermost entry is exited."""
        async with self._lock:
            self._entered_count -= 1
            if self._entered_count == 0:
                return await self._release(*args)
        return None

    async def _release(self, *exc_info: Any) -> bool | None:
        toolset, entered = self._toolset, self._toolset_entered
        self._toolset, self._toolset_entered, self._built_at_step = None, False, None
        if toolset is not None and entered:
            return await toolset.__aexit__(*exc_info)
        return None

    async def _current(self, ctx: RunContext[AgentDepsT]) -> AbstractToolset[AgentDepsT] | None:
        """The toolset for `ctx`'s step, building it if this run (or step) has none yet."""
        async with self._lock:
            stale = self.per_run_step and ctx.run_step != self._built_at_step
            if self._built_at_step is None or stale:
                await self._release(None, None, None)
                toolset = cast('AbstractToolset[AgentDepsT] | None', await call_maybe_async(self.toolset_func, ctx))
                if toolset is not None and self._entered_count > 0:
                    await toolset.__aenter__()
                    self._toolset_entered = True
                self._toolset, self._built_at_step = toolset, ctx.run_step
            return self._toolset

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The built toolset's tools (none if the function returned `None`)."""
        toolset = await self._current(ctx)
        if toolset is None:
            return {}
        tools = await toolset.get_tools(ctx)
        return {name: replace(tool, toolset=self) for name, tool in tools.items()}

    async def get_instructions(self, ctx: RunContext[AgentDepsT]) -> ToolsetInstructions:
        """The instructions of the toolset built for `ctx`'s step (building it if needed)."""
        toolset = await self._current(ctx)
        return None if toolset is None else await toolset.get_instructions(ctx)

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call the tool on the toolset built for the current step.

        Raises:
            UserError: If the function produced no toolset.
        """
        toolset = await self._current(ctx)
        if toolset is None:
            raise UserError(f'Unknown tool {name!r}: {self.label} produced no toolset for this step')
        return await toolset.call_tool(name, tool_args, ctx, tool)


def as_toolset(agent_toolset: AgentToolset[AgentDepsT]) -> AbstractToolset[AgentDepsT]:
    """Turn a toolset or a toolset-building function into a toolset.

    Args:
        agent_toolset: A toolset (returned as is) or a function building one for each run step.

    Returns:
        The toolset.
    """
    if isinstance(agent_toolset, AbstractToolset):
        return cast('AbstractToolset[AgentDepsT]', agent_toolset)
    return DynamicToolset(agent_toolset)
