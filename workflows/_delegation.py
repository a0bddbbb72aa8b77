"""A tool's run of another served agent, as a child `AgentWorkflow` of the run (see `activities._delegation`).

The child's id is the parent's workflow id, the tool call's activity id and the delegation's number in that call,
so a replay (and a retried round) finds the same child. The child runs on the parent's task queue, where the worker
that served the tool serves its agent too. Cancelling the parent's turn cancels the child (its `execute_tool` task
is cancelled, which asks the child to cancel and waits for it); a parent that ends while a child runs asks it to
cancel (`REQUEST_CANCEL`). A parent never continues as new while a child runs: it does so only between steps or
turns, when no tool call is in flight.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ApplicationError, ChildWorkflowError

from activities._agent_activities import usage_added
from activities._delegation import DelegatedRun, DelegationOutcome
from agent._parts import ToolCallPart
from agent.usage import RunUsage

from ._run_details import shorten
from ._tracing import started_under
from ._types import AgentRunInput, AgentRunOutput

__all__ = ('child_workflow_id', 'run_delegated')


def child_workflow_id(activity_id: str, number: int) -> str:
    """The child run of the `number`-th delegation of the tool call whose activity is `activity_id`."""
    return f'{workflow.info().workflow_id}.{activity_id}.agent{number}'


async def run_delegated(request: DelegatedRun, call: ToolCallPart, activity_id: str, number: int) -> DelegationOutcome:
    """Run `request` as a child run and say how it ended (a failed child is an outcome too, raised in the tool)."""
    inp = AgentRunInput(
        agent=request.agent,
        prompt=request.prompt,
        message_history=request.message_history,
        deps=request.deps,
        model=request.model,
        model_settings=request.model_settings,
        usage_limits=request.usage_limits,
        metadata=request.metadata,
        usage=request.usage,
        delegated_by=call.tool_call_id,
    )
    child_id = child_workflow_id(activity_id, number)
    try:
        with started_under(request.trace_context):  # the child's spans go under the tool call's (`workflows._tracing`)
            output = await workflow.execute_child_workflow(
                'AgentWorkflow',
                inp,
                id=child_id,
                result_type=AgentRunOutput,
                parent_close_policy=workflow.ParentClosePolicy.REQUEST_CANCEL,
                static_summary=shorten(f'{request.agent}, for {call.tool_name} [{call.tool_call_id}]'),
            )
    except ChildWorkflowError as exc:
        cause = exc.cause
        if isinstance(cause, ApplicationError):
            # The run's failure reads '<type>: <message>' (`workflows._failures`): the tool gets the message.
            message = cause.message.removeprefix(f'{cause.type}: ') if cause.type else cause.message
            return DelegationOutcome(error=message, error_type=cause.type)
        return DelegationOutcome(error=str(cause or exc), error_type=type(cause).__name__ if cause else None)
    return DelegationOutcome(
        output=output.output,
        new_messages=output.new_messages,
        usage=usage_added(request.usage or RunUsage(), output.usage),
        run_id=output.run_id,
        conversation_id=output.conversation_id,
        # A child's result leaves its messages out (the tool reads them from the child if it asks for them).
        workflow_id=child_id,
        messages_left_out=output.earlier_messages_omitted,
    )
