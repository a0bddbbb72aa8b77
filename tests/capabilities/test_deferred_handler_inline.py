"""A tool calling another tool through `ctx.tool_manager.handle_call`: deferrals are put to the handler inline."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

import pytest

from agent import Agent, ApprovalRequired, CallDeferred, DeferredToolRequests, DeferredToolResults, RunContext
from agent.capabilities import HandleDeferredToolCalls
from agent.exceptions import ModelRetry, ToolRetryError
from agent.messages import ToolCallPart
from agent.tools import ToolApproved, ToolDenied
from tests._agent_helpers import call, scripted, text

Answer: TypeAlias = Callable[[DeferredToolRequests], DeferredToolResults | None] | DeferredToolResults | None


def agent_whose_tool_calls(
    answer: Answer, *, defers_after_approval: bool = False
) -> tuple[Agent[None, str], list[Any]]:
    """An agent whose `outer` tool calls `inner` (which needs approval) and records what handle_call gave."""
    outcomes: list[Any] = []
    asked: list[DeferredToolRequests] = []

    async def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults | None:
        asked.append(requests)
        return answer(requests) if callable(answer) else answer

    agent = Agent(scripted(call('outer', {}), text('done')), capabilities=[HandleDeferredToolCalls(handler=handler)])

    @agent.tool
    async def outer(ctx: RunContext[None]) -> str:
        assert ctx.tool_manager is not None
        try:
            outcomes.append(await ctx.tool_manager.handle_call(ToolCallPart('inner', {'n': 1}, tool_call_id='in1')))
        except (ApprovalRequired, CallDeferred, ToolRetryError) as exc:
            outcomes.append(exc)
        return 'outer done'

    @agent.tool
    def inner(ctx: RunContext[None], n: int) -> str:
        if not ctx.tool_call_approved:
            raise ApprovalRequired(metadata={'why': 'sensitive'})
        if defers_after_approval:
            raise CallDeferred
        return f'inner ran with {n}'

    outcomes.append(asked)
    return agent, outcomes


async def test_an_approval_runs_the_inner_tool_again_with_any_override_arguments() -> None:
    agent, outcomes = agent_whose_tool_calls(
        DeferredToolResults(approvals={'in1': ToolApproved(override_args={'n': 7})})
    )
    await agent.run('go')
    asked, result = outcomes
    assert result == 'inner ran with 7'
    assert [c.tool_call_id for c in asked[0].approvals] == ['in1']
    assert asked[0].metadata == {'in1': {'why': 'sensitive'}}


async def test_a_denial_is_returned_and_a_retry_answer_is_raised_as_a_retry_prompt() -> None:
    agent, outcomes = agent_whose_tool_calls(DeferredToolResults(approvals={'in1': ToolDenied('not now')}))
    await agent.run('go')
    assert outcomes[1] == ToolDenied('not now')

    agent, outcomes = agent_whose_tool_calls(DeferredToolResults(approvals={}, calls={'in1': ModelRetry('again')}))
    await agent.run('go')
    error = outcomes[1]
    assert isinstance(error, ToolRetryError)
    assert (error.tool_retry.content, error.tool_retry.tool_name) == ('again', 'inner')


@pytest.mark.parametrize('answer', [None, DeferredToolResults()], ids=['declined', 'other-calls-only'])
async def test_without_an_answer_the_deferral_propagates(answer: DeferredToolResults | None) -> None:
    agent, outcomes = agent_whose_tool_calls(answer)
    await agent.run('go')
    assert isinstance(outcomes[1], ApprovalRequired)


async def test_a_tool_that_defers_again_after_approval_propagates_the_new_deferral_after_one_question() -> None:
    agent, outcomes = agent_whose_tool_calls(
        lambda requests: DeferredToolResults(approvals={c.tool_call_id: True for c in requests.approvals}),
        defers_after_approval=True,
    )
    await agent.run('go')
    asked, result = outcomes
    assert isinstance(result, CallDeferred)
    assert len(asked) == 1
