"""`async with agent:`: keeping an agent's toolsets (MCP servers, for example) entered across runs; thread executors."""

from __future__ import annotations

from concurrent.futures import Executor
from contextlib import AbstractContextManager, AsyncExitStack
from typing import Any, Self

from ._threads import use_thread_executor

__all__ = ('AgentContextMixin',)


class AgentContextMixin:
    """Makes `Agent` an async context manager that enters its toolsets once, however often it is entered."""

    toolsets: Any
    _entered: int = 0
    _exit_stack: AsyncExitStack | None = None

    @staticmethod
    def using_thread_executor(executor: Executor | None) -> AbstractContextManager[None]:
        """Run sync tools and callbacks of every agent on `executor` within the `with` block (`None`: the default).

        The `ThreadExecutor` capability does the same for one agent's runs.
        """
        return use_thread_executor(executor)

    async def __aenter__(self) -> Self:
        """Enter the agent's toolsets (starting MCP servers, for example) until the matching exit.

        Entering again only counts: the toolsets are entered once and left at the last exit, so runs inside the
        block reuse the running servers instead of starting their own.
        """
        if self._entered == 0:
            async with AsyncExitStack() as stack:
                for toolset in self.toolsets:
                    await stack.enter_async_context(toolset)
                self._exit_stack = stack.pop_all()
        self._entered += 1
        return self

    async def __aexit__(self, *args: Any) -> None:
        self._entered -= 1
        if self._entered == 0 and self._exit_stack is not None:
            stack, self._exit_stack = self._exit_stack, None
            await stack.aclose()
