"""`UndrainedPendingMessagesError`: a run iterated node by node must not end with enqueued messages dropped."""

from __future__ import annotations

import pytest

from agent import Agent, CallDeferred, DeferredToolRequests, RunContext, UndrainedPendingMessagesError, UserError
from agent.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel


def _calls_then_answers(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart('note', {}), ToolCallPart('later', {})])
    return ModelResponse(parts=[TextPart('done')])


def _agent() -> Agent[None, str | DeferredToolRequests]:
    agent = Agent[None, str | DeferredToolRequests](
        FunctionModel(_calls_then_answers), output_type=[str, DeferredToolRequests]
    )

    @agent.tool
    def note(ctx: RunContext[None]) -> str:
        ctx.enqueue('and one more thing', priority='when_idle')
        return 'noted'

    @agent.tool_plain
    def later() -> str:
        raise CallDeferred()

    return agent


async def test_iterating_a_run_that_ends_with_undelivered_enqueued_messages_raises() -> None:
    async with _agent().iter('hi') as agent_run:
        with pytest.raises(UndrainedPendingMessagesError, match='undrained pending messages: 1 enqueued message'):
            async for _ in agent_run:
                pass


async def test_iterating_a_run_whose_queue_drains_ends_normally() -> None:
    agent = Agent(FunctionModel(_calls_then_answers))

    @agent.tool
    def note(ctx: RunContext[None]) -> str:
        ctx.enqueue('and one more thing', priority='when_idle')
        return 'noted'

    @agent.tool_plain
    def later() -> str:
        return 'now'

    async with agent.iter('hi') as agent_run:
        async for _ in agent_run:
            pass
    assert agent_run.result is not None
    assert agent_run.result.output == 'done'


def test_undrained_pending_messages_error_is_a_user_error() -> None:
    assert issubclass(UndrainedPendingMessagesError, UserError)
