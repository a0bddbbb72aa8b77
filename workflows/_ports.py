"""`WorkflowPorts`: the agent graph's ports bound to activities, signals and durable waits."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

from activities._errors import from_activity_error
from activities._names import call_tool_activity_name, model_request_activity_name
from activities._types import ActivityRunContext, CallToolInput, ModelRequestInput
from agent._deferred import DeferredToolRequests, DeferredToolResults
from agent._model_request_context import ModelRequestContext
from agent._parts import ModelResponse, ToolCallPart
from agent._ports import RunPorts
from agent._run_context import RunContext

__all__ = ('WorkflowPorts',)

MODEL_TIMEOUT = timedelta(minutes=5)
TOOL_TIMEOUT = timedelta(minutes=5)
TOOL_RETRY = RetryPolicy(maximum_attempts=3)


class WorkflowPorts(RunPorts):
    """Model requests and tool executions as activities; deferred calls wait for signals or updates."""

    def __init__(self, agent_name: str, model_override: str | None) -> None:
        self.agent_name = agent_name
        self.model_override = model_override
        self.pending: DeferredToolRequests | None = None
        self.collected = DeferredToolResults()

    async def request_model(
        self, ctx: RunContext[Any], request_context: ModelRequestContext, capability: Any
    ) -> ModelResponse:
        settings = request_context.model_settings
        return await workflow.execute_activity(
            model_request_activity_name(self.agent_name),
            ModelRequestInput(
                ctx=ActivityRunContext.from_run_context(ctx),
                messages=request_context.messages,
                parameters=request_context.model_request_parameters,
                model_settings=dict(settings) if settings is not None else None,
                model=self.model_override,
            ),
            result_type=ModelResponse,
            start_to_close_timeout=MODEL_TIMEOUT,
        )

    def request_model_stream(self, ctx: RunContext[Any], request_context: ModelRequestContext) -> Any:
        # Durable runs make plain requests; the graph falls back to them when streaming is unavailable.
        raise NotImplementedError('Streamed model requests are not made from a workflow')

    async def execute_tool(
        self, ctx: RunContext[Any], call: ToolCallPart, tool: Any, args: dict[str, Any], capability: Any
    ) -> Any:
        try:
            return await workflow.execute_activity(
                call_tool_activity_name(self.agent_name),
                CallToolInput(ctx=ActivityRunContext.from_run_context(ctx), call=call, args=args),
                start_to_close_timeout=TOOL_TIMEOUT,
                retry_policy=TOOL_RETRY,
            )
        except ActivityError as exc:
            if (signal := from_activity_error(exc)) is not None:
                raise signal from None
            raise

    async def await_deferred_results(
        self, ctx: RunContext[Any], requests: DeferredToolRequests
    ) -> DeferredToolResults | None:
        agent = ctx.agent
        if agent is not None and agent._output_schema.allows_deferred_tool_requests:
            return None  # the agent asked for the end-the-run style: return the requests as the output
        self.pending = requests
        self.collected = DeferredToolResults()
        await workflow.wait_condition(lambda: requests.remaining(self.collected) is None)
        results, self.pending = self.collected, None
        self.collected = DeferredToolResults()
        return results

    def check_results(self, results: DeferredToolResults) -> None:
        """Reject results for calls that are not pending (unknown or already resolved).

        Raises:
            ValueError: naming the offending ids and the ones still pending.
        """
        if self.pending is None:
            raise ValueError('No tool calls are waiting for results in this run.')
        remaining = self.pending.remaining(self.collected)
        waiting = set(remaining.tool_call_ids) if remaining is not None else set()
        resolved = self.collected.tool_call_ids
        for call_id in sorted(results.tool_call_ids):
            if call_id in resolved:
                raise ValueError(f'Tool call {call_id!r} was already resolved.')
            if call_id not in waiting:
                raise ValueError(f'Unknown tool call id {call_id!r}; pending ids: {sorted(waiting)}')
        self.pending.build_results(approvals=results.approvals, calls=results.calls, metadata=results.metadata)

    def add_results(self, results: DeferredToolResults) -> DeferredToolRequests | None:
        """Record results (already checked) and return what is still pending."""
        self.collected.update(results)
        return self.pending.remaining(self.collected) if self.pending is not None else None
