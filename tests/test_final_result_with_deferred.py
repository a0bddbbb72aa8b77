"""A response with a final result and calls that would wait for someone; and responses cut off by the token limit."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from agent import Agent, CallDeferred
from agent.agent import EndStrategy
from agent.exceptions import UnexpectedModelBehavior
from agent.messages import ModelResponse, ThinkingPart, ToolCallPart, ToolReturnPart

from ._agent_helpers import calls, parts_of, scripted

NOT_EXECUTED = 'Tool not executed - a final result was already processed.'


class Answer(pydantic.BaseModel):
    value: int


def _final_and_deferred() -> ModelResponse:
    return calls(
        ToolCallPart('final_result', {'value': 1}, 'out'),
        ToolCallPart('delete', {'path': 'a'}, 'approve-me'),
        ToolCallPart('later', {}, 'defer-me'),
        ToolCallPart('read', {}, 'read-me'),
    )


def _agent(end_strategy: EndStrategy, ran: list[str]) -> Agent[None, Any]:
    agent = Agent(scripted(_final_and_deferred()), output_type=Answer, end_strategy=end_strategy)

    @agent.tool_plain(requires_approval=True)
    def delete(path: str) -> str:
        ran.append('delete')  # pragma: no cover
        return 'deleted'  # pragma: no cover

    @agent.tool_plain
    def later() -> str:
        ran.append('later')
        raise CallDeferred

    @agent.tool_plain
    def read() -> str:
        ran.append('read')
        return 'contents'

    return agent


@pytest.mark.parametrize('end_strategy', ['early', 'exhaustive'])
async def test_final_result_with_deferred_calls_answers_them_not_executed(end_strategy: EndStrategy):
    ran: list[str] = []
    agent = _agent(end_strategy, ran)

    result = await agent.run('go')

    assert result.output == Answer(value=1)
    returns = {p.tool_call_id: p.content for p in parts_of(result.all_messages(), ToolReturnPart)}
    assert returns['approve-me'] == NOT_EXECUTED
    assert returns['defer-me'] == NOT_EXECUTED
    if end_strategy == 'exhaustive':
        assert returns['read-me'] == 'contents'
        assert sorted(ran) == ['later', 'read']
    else:
        assert returns['read-me'] == NOT_EXECUTED
        assert ran == []


@pytest.mark.parametrize('parts', [[], [ThinkingPart('thinking about it')]])
async def test_empty_response_cut_off_by_the_token_limit_raises_at_once(parts: list[ThinkingPart]):
    agent = Agent(scripted(ModelResponse(parts=list(parts), finish_reason='length')))

    with pytest.raises(UnexpectedModelBehavior, match=r'Model token limit \(50\) exceeded'):
        await agent.run('go', model_settings={'max_tokens': 50})


async def test_empty_response_that_was_not_cut_off_is_still_retried():
    agent = Agent(scripted(ModelResponse(parts=[]), ModelResponse(parts=[]), ModelResponse(parts=[])))

    with pytest.raises(UnexpectedModelBehavior, match='maximum output retries'):
        await agent.run('go')
