"""`DynamicToolset`: a toolset built by a function of the run context, for each run or each run step.

The built toolset lives for one run (or one step): when it is replaced, or when the run ends, it is exited if
it was entered. The dynamic toolset therefore holds per-run state, so `for_run` gives each run its own copy.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
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

    def __eq__(self, other: object) -> bool:
        """Dynamic toolsets are equal when they build with the same function and settings."""
        if not isinstance(other, DynamicToolset):
            return NotImplemented
        theirs = cast('DynamicToolset[Any]', other)
        return self._settings() == theirs._settings()

    def __hash__(self) -> int:
        return hash(self._settings())

    def _settings(self) -> tuple[Any, bool, str | None]:
        return (self.toolset_func, self.per_run_step, self._id)

    def copy(self) -> DynamicToolset[AgentDepsT]:
        """A fresh dynamic toolset with the same function and settings and no built toolset."""
        return DynamicToolset(self.toolset_func, self.per_run_step, id=self._id)

    async def for_run(self, ctx: RunContext[AgentDepsT]) -> AbstractToolset[AgentDepsT]:
        """A fresh copy for the run, so runs of one agent that overlap never share a built toolset.

        A toolset built once per run (`per_run_step=False`) is built now; one built per step waits for
        `for_run_step`.
        """
        fresh = self.copy()
        if not self.per_run_step:
            fresh._toolset = await self._build(ctx)
            fresh._built_at_step = ctx.run_step
        return fresh

    async def for_run_step(self, ctx: RunContext[AgentDepsT]) -> AbstractToolset[AgentDepsT]:
        """Build the toolset for this step (if built per step) in place, and return `self`.

        The toolset it replaces is exited and the new one entered (while the dynamic toolset is entered); a
        function returning the toolset it already has changes nothing.
        """
        async with self._lock:
            if self.per_run_step or self._built_at_step is None:
                await self._replace(await self._build(ctx), ctx.run_step)
        return self

    async def _build(self, ctx: RunContext[AgentDepsT]) -> AbstractToolset[AgentDepsT] | None:
        return cast('AbstractToolset[AgentDepsT] | None', await call_maybe_async(self.toolset_func, ctx))

    async def _replace(self, toolset: AbstractToolset[AgentDepsT] | None, run_step: int) -> None:
        """Make `toolset` the built one: exit the old one, then enter the new one if the dynamic one is entered.

        Each is recorded only once its enter succeeded (and forgotten before its exit), so a failure never
        leaves a toolset that would be exited without having been entered, or exited twice.
        """
        self._built_at_step = run_step
        if toolset is self._toolset:
            return
        old, old_entered = self._toolset, self._toolset_entered
        self._toolset, self._toolset_entered = None, False
        if old is not None and old_entered:
            await old.__aexit__(None, None, None)
        if toolset is not None and self._entered_count > 0:
            await toolset.__aenter__()
            self._toolset_entered = True
        self._toolset = toolset

    async def __aenter__(self) -> Self:
        """Start a run: the built toolset (if already built) is entered while the dynamic toolset is entered."""
        async with self._lock:
            if self._entered_count == 0 and self._toolset is not None and not self._toolset_entered:
                toolset, self._toolset = self._toolset, None
                await toolset.__aenter__()
                self._toolset, self._toolset_entered = toolset, True
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
        """The toolset for `ctx`'s step, building it if `for_run_step` did not (for use without a run loop)."""
        async with self._lock:
            stale = self.per_run_step and ctx.run_step != self._built_at_step
            if self._built_at_step is None or stale:
                await self._replace(await self._build(ctx), ctx.run_step)
            return self._toolset

    def apply(self, visitor: Callable[[AbstractToolset[AgentDepsT]], None]) -> None:
        """Visit the built toolset's leaves, or the dynamic toolset itself while nothing is built."""
        if self._toolset is None:
            visitor(self)
        else:
            self._toolset.apply(visitor)

    def visit_and_replace(
        self, visitor: Callable[[AbstractToolset[AgentDepsT]], AbstractToolset[AgentDepsT]]
    ) -> AbstractToolset[AgentDepsT]:
        """Replace the built toolset's leaves (in a new dynamic toolset), or the dynamic toolset while none is built."""
        if self._toolset is None:
            return visitor(self)
        replaced = self.copy()
        replaced._toolset = self._toolset.visit_and_replace(visitor)
        replaced._built_at_step = self._built_at_step
        return replaced

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The built toolset's tools (none if the function returned `None`)."""
        toolset = await self._current(ctx)
        if toolset is None:
            return {}
        tools = await toolset.get_tools(ctx)
        return {name: replace(tool, toolset=self) for name, tool in tools.items()}

    async def get_instructions(self, ctx: RunContext[AgentDepsT]) -> ToolsetInstructions:
        """The instructions of the toolset built for `ctx`'s step; `None` until one is built."""
        if self._built_at_step is None:
            return None
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
