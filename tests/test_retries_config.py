"""`Agent(retries=...)`: one budget for tools and output, or a dict with a budget per category."""

from __future__ import annotations

import pytest

from agent import Agent, ModelRetry
from agent.exceptions import ToolRetriesExhausted, UnexpectedModelBehavior
from agent.messages import RetryPromptPart

from ._agent_helpers import call, parts_of, scripted, text


async def test_retries_dict_sets_the_tool_budget_and_a_tool_may_fail_that_often():
    agent = Agent(scripted(*[call('flaky')] * 3, text('done')), retries={'tools': 3, 'output': 1})
    attempts: list[int] = []

    @agent.tool_plain
    def flaky() -> str:
        attempts.append(1)
        raise ModelRetry('try again')

    result = await agent.run('go')

    assert result.output == 'done'
    assert len(attempts) == 3
    assert len(parts_of(result.all_messages(), RetryPromptPart)) == 3


async def test_retries_dict_tool_budget_is_enforced():
    agent = Agent(scripted(*[call('flaky')] * 3), retries={'tools': 1})

    @agent.tool_plain
    def flaky() -> str:
        raise ModelRetry('try again')

    with pytest.raises(ToolRetriesExhausted):
        await agent.run('go')


async def test_retries_dict_sets_the_output_budget():
    agent = Agent(scripted(text('a'), text('b'), text('c'), text('ok')), retries={'tools': 0, 'output': 3})

    @agent.output_validator
    def only_ok(output: str) -> str:
        if output != 'ok':
            raise ModelRetry('say ok')
        return output

    result = await agent.run('go')

    assert result.output == 'ok'


async def test_retries_dict_without_output_key_leaves_the_output_budget_at_one():
    agent = Agent(scripted(text('a'), text('b'), text('ok')), retries={'tools': 5})

    @agent.output_validator
    def only_ok(output: str) -> str:
        if output != 'ok':
            raise ModelRetry('say ok')
        return output

    with pytest.raises(UnexpectedModelBehavior, match=r'maximum output retries \(1\)'):
        await agent.run('go')


async def test_tool_retries_argument_overrides_the_retries_budget_for_tools():
    agent = Agent(scripted(*[call('flaky')] * 2, text('done')), retries=0, tool_retries=2)

    @agent.tool_plain
    def flaky() -> str:
        raise ModelRetry('try again')

    assert (await agent.run('go')).output == 'done'
