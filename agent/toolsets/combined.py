"""`CombinedToolset`: the tools of several toolsets offered together."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field, replace
from typing import Any, Self, TypeVar

from agent._parts import InstructionPart
from agent._run_context import RunContext
from agent._tool import AgentDepsT
from agent.exceptions import UserError

from .abstract import AbstractToolset, ToolsetTool

__all__ = ('CombinedToolset',)

_T = TypeVar('_T')


async def _gather(awaitables: Sequence[Awaitable[_T]]) -> list[_T]:
    """Await all of `awaitables` together; when one fails, cancel the others rather than leave them running.

    One failure is raised as it is; several (that failed before the others were cancelled) as an
    `ExceptionGroup`. Tasks are cancelled and inspected in their given order, never by iterating a set, so a
    durable run's workflow code schedules the same commands on every replay.
    """
    tasks = [asyncio.ensure_future(awaitable) for awaitable in awaitables]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException as first:
        for task in tasks:
            task.cancel()
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
        errors = [o for o in outcomes if isinstance(o, Exception) and not isinstance(o, asyncio.CancelledError)]
        if len(errors) > 1 and isinstance(first, Exception):
            raise ExceptionGroup('Several toolsets failed', errors) from None
        raise


@dataclass
class CombinedToolset(AbstractToolset[AgentDepsT]):
    """Offers the tools of several toolsets together; tool names must not clash.

    The tools keep the `toolset` their own toolset gave them, since combining adds no behaviour of its own.
    `call_tool` on the combination routes a call by tool name to the toolset that offered it, which is what a
    wrapper around the combination relies on.
    """

    toolsets: Sequence[AbstractToolset[AgentDepsT]]
    """The toolsets to combine."""

    _owners: dict[str, AbstractToolset[AgentDepsT]] = field(
        default_factory=dict[str, AbstractToolset[AgentDepsT]], init=False, repr=False, compare=False
    )
    _enter_lock: asyncio.Lock = field(default_factory=asyncio.Lock, init=False, repr=False, compare=False)
    _entered_count: int = field(default=0, init=False, repr=False, compare=False)
    _exit_stack: AsyncExitStack | None = field(default=None, init=False, repr=False, compare=False)

    async def for_run(self, ctx: RunContext[AgentDepsT]) -> AbstractToolset[AgentDepsT]:
        """A new combination of each toolset's per-run instance.

        Always a new instance, even if no member changed, so runs never share the combination's own state.
        """
        toolsets = await _gather([toolset.for_run(ctx) for toolset in self.toolsets])
        return replace(self, toolsets=list(toolsets))

    async def for_run_step(self, ctx: RunContext[AgentDepsT]) -> AbstractToolset[AgentDepsT]:
        """A combination of each toolset's per-step instance (`self` if none changed)."""
        toolsets = await _gather([toolset.for_run_step(ctx) for toolset in self.toolsets])
        return self._with(toolsets)

    def _with(self, toolsets: Sequence[AbstractToolset[AgentDepsT]]) -> CombinedToolset[AgentDepsT]:
        if all(new is old for new, old in zip(toolsets, self.toolsets, strict=True)):
            return self
        # A new combination starts with no entries and no known owners of its own.
        return replace(self, toolsets=list(toolsets))

    async def __aenter__(self) -> Self:
        """Enter every toolset; nested entries are counted and only the first one enters them."""
        async with self._enter_lock:
            if self._entered_count == 0:
                async with AsyncExitStack() as stack:
                    for toolset in self.toolsets:
                        await stack.enter_async_context(toolset)
                    # Keep them entered past this block; they are exited when the last entry is exited.
                    self._exit_stack = stack.pop_all()
            self._entered_count += 1
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        """Exit every toolset when the outermost entry is exited."""
        async with self._enter_lock:
            self._entered_count -= 1
            if self._entered_count == 0 and self._exit_stack is not None:
                stack, self._exit_stack = self._exit_stack, None
                return await stack.__aexit__(*args)
        return None

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The tools of all the toolsets.

        A toolset that fails cancels the others' listing; several that fail together raise an `ExceptionGroup`.

        Raises:
            UserError: If two toolsets offer a tool with the same name.
        """
        results = await _gather([toolset.get_tools(ctx) for toolset in self.toolsets])
        tools: dict[str, ToolsetTool[AgentDepsT]] = {}
        owners: dict[str, AbstractToolset[AgentDepsT]] = {}
        for toolset, toolset_tools in zip(self.toolsets, results, strict=True):
            for name, tool in toolset_tools.items():
                existing = owners.get(name)
                if existing is not None:
                    label = toolset.label[:1].upper() + toolset.label[1:]
                    raise UserError(
                        f'{label} defines a tool whose name conflicts with existing tool from '
                        f'{existing.label}: {name!r}. {toolset.tool_name_conflict_hint}'
                    )
                owners[name] = toolset
                tools[name] = tool
        self._owners.update(owners)
        return tools

    async def get_instructions(self, ctx: RunContext[AgentDepsT]) -> list[str | InstructionPart] | None:
        """The instructions of all the toolsets, in their order, as one list (`None` if none has any)."""
        # One toolset after the other, not gathered: in a durable run a member may fetch its instructions by
        # activity, and recorded histories schedule those activities one at a time.
        parts: list[str | InstructionPart] = []
        for toolset in self.toolsets:
            found = await toolset.get_instructions(ctx)
            if isinstance(found, str | InstructionPart):
                parts.append(found)
            elif found is not None:
                parts.extend(found)
        return parts or None

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call the tool on the toolset that offered it.

        Raises:
            UserError: If no toolset offers a tool with this name.
        """
        owner = self._owners.get(name)
        if owner is None:
            # Not listed by this instance yet (e.g. a fresh copy in another process): list the tools first.
            await self.get_tools(ctx)
            owner = self._owners.get(name)
            if owner is None:
                raise UserError(f'Unknown tool {name!r}: none of the toolsets in {self.label} offers it')
        return await owner.call_tool(name, tool_args, ctx, tool)

    def apply(self, visitor: Callable[[AbstractToolset[AgentDepsT]], None]) -> None:
        for toolset in self.toolsets:
            toolset.apply(visitor)

    def visit_and_replace(
        self, visitor: Callable[[AbstractToolset[AgentDepsT]], AbstractToolset[AgentDepsT]]
    ) -> AbstractToolset[AgentDepsT]:
        return replace(self, toolsets=[toolset.visit_and_replace(visitor) for toolset in self.toolsets])
