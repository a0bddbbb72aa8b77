"""The last event of a durable turn's stream, built from what the workflow says: a result, or approvals to wait for."""

from __future__ import annotations

from typing import Any

from agent._agent_graph import GraphAgentState
from agent._deferred import DeferredToolRequests, DeferredToolResults, ToolDenied
from agent._events import FunctionToolResultEvent
from agent._parts import ModelResponse, ToolReturnPart
from agent.run import AgentRunResult, AgentRunResultEvent
from workflows._types import AgentRunOutput

__all__ = ('approvals_response', 'denial_events', 'finished_event', 'waiting_event')


def finished_event(output: AgentRunOutput) -> AgentRunResultEvent[Any]:
    """The event that ends a turn the workflow finished (its `send_message` update's result)."""
    state = GraphAgentState(
        message_history=list(output.new_messages),
        usage=output.usage,
        run_id=output.run_id,
        conversation_id=output.conversation_id,
    )
    return AgentRunResultEvent(AgentRunResult(output.output, _state=state))


def approvals_response(pending: DeferredToolRequests) -> ModelResponse:
    """A model response with just the pending calls: what the page needs to show the approval buttons."""
    return ModelResponse(parts=[*pending.approvals, *pending.calls])


def waiting_event(pending: DeferredToolRequests) -> AgentRunResultEvent[Any]:
    """The event that ends a turn's stream when the turn waits for approvals (it goes on in the workflow).

    Its output is the pending calls, which is all the protocols read from it; its messages are only a response
    with those calls, so the stream ends without another round trip to the workflow (the page reads the
    conversation, with the response that asked for the calls in full, from `history`).
    """
    state = GraphAgentState(message_history=[approvals_response(pending)])
    return AgentRunResultEvent(AgentRunResult(pending, _state=state))


def denial_events(pending: DeferredToolRequests, results: DeferredToolResults) -> list[FunctionToolResultEvent]:
    """The result events of the calls `results` denies, as the agent emits them when it resumes.

    The agent answers a denied call in the workflow itself, not in an activity, so its event never reaches the
    hub; the stream that continues the turn starts with them instead, so the page shows each call denied.
    """
    events: list[FunctionToolResultEvent] = []
    for call in pending.approvals:
        answer = results.approvals.get(call.tool_call_id)
        if answer is False:
            answer = ToolDenied()
        if isinstance(answer, ToolDenied):
            part = ToolReturnPart(call.tool_name, answer.message, call.tool_call_id, outcome='denied')
            events.append(FunctionToolResultEvent(part))
    return events
