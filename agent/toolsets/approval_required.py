"""`ApprovalRequiredToolset`: makes calls to a toolset's tools wait for human approval."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agent._run_context import RunContext
from agent._tool import AgentDepsT
from agent._tool_def import ToolDefinition
from agent.exceptions import ApprovalRequired

from .abstract import ToolsetTool
from .wrapper import WrapperToolset

__all__ = ('ApprovalRequiredToolset',)


def _always(ctx: RunContext[Any], tool_def: ToolDefinition, tool_args: dict[str, Any]) -> bool:
    return True


@dataclass
class ApprovalRequiredToolset(WrapperToolset[AgentDepsT]):
    """Defers calls to the wrapped toolset's tools until a human approves them.

    A call that needs approval raises `ApprovalRequired`; the run then ends with the call in
    `DeferredToolRequests.approvals`, and once it is approved the call is made again with
    `ctx.tool_call_approved` set.
    """

    approval_required_func: Callable[[RunContext[AgentDepsT], ToolDefinition, dict[str, Any]], bool] = _always
    """Decides from the run context, the tool definition and the arguments whether a call needs approval;
    by default every call does."""

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call the tool if it is approved or needs no approval.

        Raises:
            ApprovalRequired: If the call needs approval it does not have yet.
        """
        if not ctx.tool_call_approved and self.approval_required_func(ctx, tool.tool_def, tool_args):
            raise ApprovalRequired
        return await self.wrapped.call_tool(name, tool_args, ctx, tool)
