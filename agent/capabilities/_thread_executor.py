"""`ThreadExecutor`: run sync tools and other sync callbacks on a given executor."""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from agent._parts import ToolCallPart
from agent._run_context import RunContext
from agent._threads import use_thread_executor
from agent._tool_def import ToolDefinition

from ._abstract import AbstractCapability
from ._types import (
    AgentNode,
    NodeResult,
    RawToolArgs,
    ValidatedToolArgs,
    WrapNodeRunHandler,
    WrapToolExecuteHandler,
    WrapToolValidateHandler,
)

__all__ = ('ThreadExecutor',)


@dataclass
class ThreadExecutor(AbstractCapability[Any]):
    """Runs sync tool functions and sync callbacks on `executor` instead of ephemeral threads.

    Useful in long-running servers, where a bounded pool keeps threads from piling up under load.
    """

    executor: Executor
    """The executor sync callables are submitted to."""

    @classmethod
    def get_serialization_name(cls) -> str | None:
        # Takes an executor object, which an agent spec cannot express.
        return None

    async def wrap_node_run(
        self, ctx: RunContext[Any], *, node: AgentNode[Any], handler: WrapNodeRunHandler[Any]
    ) -> NodeResult[Any]:
        with use_thread_executor(self.executor):
            return await handler(node)

    async def wrap_tool_validate(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: RawToolArgs,
        handler: WrapToolValidateHandler,
    ) -> ValidatedToolArgs:
        with use_thread_executor(self.executor):
            return await handler(args)

    async def wrap_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        handler: WrapToolExecuteHandler,
    ) -> Any:
        # Tool execution may happen apart from the node (e.g. in an activity), so it is covered on its own.
        with use_thread_executor(self.executor):
            return await handler(args)
