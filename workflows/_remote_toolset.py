"""Stands in, inside the workflow, for a toolset that lists its tools over the network (an MCP server)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy

from activities._names import get_instructions_activity_name, list_tools_activity_name
from activities._types import ActivityRunContext
from agent._run_context import RunContext
from agent._tool_def import ToolDefinition
from agent.toolsets import AbstractToolset, ToolsetTool

from ._activity_ids import ActivityIds
from ._missing_keys import until_decrypted

__all__ = ('ActivityListedToolset',)

LIST_TOOLS_TIMEOUT = timedelta(minutes=1)
LIST_TOOLS_RETRY = RetryPolicy(initial_interval=timedelta(milliseconds=200), maximum_attempts=5)


class ActivityListedToolset(AbstractToolset[Any]):
    """The tools of a networked toolset, listed by the `agent.<agent>.toolset.<id>.list_tools` activity.

    The list is fetched once per workflow run and kept for the run's later steps. That is replay-safe: it
    depends only on the run's own history (an activity result), never on what a worker happens to have cached,
    so a history recorded on a warm worker replays on a cold one. Calls of its tools run in the tool activity,
    on the worker's live connection to the server, like every other tool of a durable run.
    """

    def __init__(
        self,
        agent_name: str,
        toolset_id: str,
        max_retries: int,
        label: str,
        *,
        include_instructions: bool = False,
        activity_ids: ActivityIds | None = None,
        model_override: str | None = None,
    ) -> None:
        self.agent_name = agent_name
        self.model_override = model_override
        """The model the run named, which the activities give the server (its sampling requests use it)."""
        self.activity_ids = activity_ids or ActivityIds(0)
        self.toolset_id = toolset_id
        self.max_retries = max_retries
        self.include_instructions = include_instructions
        self._label = label
        self._tool_defs: list[ToolDefinition] | None = None
        self._instructions: tuple[str | None] | None = None

    @property
    def id(self) -> str | None:
        return self.toolset_id

    @property
    def label(self) -> str:
        return self._label

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        # Loaded only here: a toolset like this exists only in processes that already use the MCP SDK.
        from agent._mcp._convert import ANY_OBJECT_ARGS

        tool_defs = self._tool_defs
        if tool_defs is None:
            # Scheduled again while only workers without the run's key take it (see `workflows._missing_keys`).
            tool_defs = self._tool_defs = await until_decrypted(
                lambda activity_id: workflow.execute_activity(
                    list_tools_activity_name(self.agent_name, self.toolset_id),
                    ActivityRunContext.from_run_context(ctx, model=self.model_override),
                    activity_id=activity_id,
                    result_type=list[ToolDefinition],
                    start_to_close_timeout=LIST_TOOLS_TIMEOUT,
                    retry_policy=LIST_TOOLS_RETRY,
                ),
                self.activity_ids.other(ctx.run_step, f'toolset.{self.toolset_id}.list_tools'),
            )
        return {
            tool_def.name: ToolsetTool(
                toolset=self, tool_def=tool_def, max_retries=self.max_retries, args_validator=ANY_OBJECT_ARGS
            )
            for tool_def in tool_defs
        }

    async def get_instructions(self, ctx: RunContext[Any]) -> str | None:
        """The server's instructions (when it includes them), fetched by activity once per workflow run."""
        if not self.include_instructions:
            return None
        if self._instructions is None:
            fetched: str | None = await until_decrypted(
                lambda activity_id: workflow.execute_activity(
                    get_instructions_activity_name(self.agent_name, self.toolset_id),
                    ActivityRunContext.from_run_context(ctx, model=self.model_override),
                    activity_id=activity_id,
                    result_type=str | None,  # pyright: ignore[reportArgumentType]  (a union is a valid hint)
                    start_to_close_timeout=LIST_TOOLS_TIMEOUT,
                    retry_policy=LIST_TOOLS_RETRY,
                ),
                self.activity_ids.other(ctx.run_step, f'toolset.{self.toolset_id}.instructions'),
            )
            self._instructions = (fetched,)
        return self._instructions[0]

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        # A durable run executes every tool in the tool activity, on the worker's own toolset.
        raise RuntimeError(f'{self.label}: tools of a networked toolset run in the tool activity, not the workflow')
