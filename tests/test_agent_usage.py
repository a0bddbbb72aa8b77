"""Usage accounting and usage limits in real agent runs."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agent import Agent, ModelRetry, RunUsage, UsageLimits
from agent.exceptions import UsageLimitExceeded
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel
from agent.usage import RequestUsage


def always_calls_tools(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart('again', {})], usage=RequestUsage(input_tokens=10, output_tokens=1))


def costly(input_tokens: int, output_tokens: int, *, then_text: bool = False) -> FunctionModel:
    """A model reporting fixed token usage; it calls `again` until it has seen `then_text` allow an answer."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=input_tokens, output_tokens=output_tokens)
        requests = sum(isinstance(m, ModelRequest) for m in messages)
        if then_text and requests > 1:
            return ModelResponse(parts=[TextPart('done')], usage=usage)
        return ModelResponse(parts=[ToolCallPart('again', {})], usage=usage)

    return FunctionModel(respond)


def agent_with_again_tool(model: Any) -> tuple[Agent[None, str], list[int]]:
    agent = Agent(model)
    calls: list[int] = []

    @agent.tool_plain
    def again() -> str:
        calls.append(1)
        return 'again'

    return agent, calls


async def test_request_limit_stops_a_model_that_keeps_calling_tools():
    agent, calls = agent_with_again_tool(FunctionModel(always_calls_tools))

    with pytest.raises(UsageLimitExceeded, match='request_limit of 1'):
        await agent.run('loop', usage_limits=UsageLimits(request_limit=1))

    assert len(calls) == 1


async def test_request_limit_allows_exactly_that_many_requests():
    agent, calls = agent_with_again_tool(FunctionModel(always_calls_tools))
    usage = RunUsage()

    with pytest.raises(UsageLimitExceeded, match='request_limit of 3'):
        await agent.run('loop', usage=usage, usage_limits=UsageLimits(request_limit=3))

    assert (usage.requests, usage.tool_calls, len(calls)) == (3, 3, 3)


async def test_default_request_limit_ends_an_endless_tool_loop():
    agent, _ = agent_with_again_tool(FunctionModel(always_calls_tools))

    with pytest.raises(UsageLimitExceeded, match='request_limit of 50'):
        await agent.run('loop')


async def test_tool_calls_limit_refuses_a_response_calling_too_many_tools():
    ran: list[str] = []

    def two_calls(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart('a', {}), ToolCallPart('b', {})])

    agent = Agent(FunctionModel(two_calls))

    @agent.tool_plain
    def a() -> str:
        ran.append('a')
        return 'a'

    @agent.tool_plain
    def b() -> str:
        ran.append('b')
        return 'b'

    with pytest.raises(UsageLimitExceeded, match=re.escape('tool_calls_limit of 1 (tool_calls=2).')):
        await agent.run('go', usage_limits=UsageLimits(tool_calls_limit=1))

    assert ran == []


async def test_tool_calls_limit_counts_calls_across_steps():
    agent, calls = agent_with_again_tool(FunctionModel(always_calls_tools))

    with pytest.raises(UsageLimitExceeded, match='tool_calls_limit of 2'):
        await agent.run('loop', usage_limits=UsageLimits(tool_calls_limit=2))

    assert len(calls) == 2


async def test_input_token_limit_is_enforced_with_the_models_reported_usage():
    agent, _ = agent_with_again_tool(costly(40, 1))

    with pytest.raises(UsageLimitExceeded, match='input_tokens_limit of 100') as exc_info:
        await agent.run('loop', usage_limits=UsageLimits(input_tokens_limit=100))

    assert 'input_tokens=120' in str(exc_info.value)


async def test_output_token_limit_is_enforced():
    agent, _ = agent_with_again_tool(costly(1, 30))

    with pytest.raises(UsageLimitExceeded, match='output_tokens_limit of 50'):
        await agent.run('loop', usage_limits=UsageLimits(output_tokens_limit=50))


async def test_total_token_limit_is_enforced():
    agent, calls = agent_with_again_tool(costly(20, 5))

    with pytest.raises(UsageLimitExceeded, match='total_tokens_limit of 60'):
        await agent.run('loop', usage_limits=UsageLimits(total_tokens_limit=60))

    assert len(calls) == 2


async def test_token_usage_under_the_limits_completes():
    agent, _ = agent_with_again_tool(costly(20, 5, then_text=True))

    result = await agent.run(
        'go', usage_limits=UsageLimits(input_tokens_limit=40, output_tokens_limit=10, total_tokens_limit=50)
    )

    assert result.output == 'done'
    usage = result.usage()
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (40, 10, 50)


async def test_run_usage_counts_requests_tool_calls_and_tokens():
    agent, _ = agent_with_again_tool(costly(7, 3, then_text=True))

    result = await agent.run('go')

    usage = result.usage()
    assert (usage.requests, usage.tool_calls) == (2, 1)
    assert (usage.input_tokens, usage.output_tokens) == (14, 6)


async def test_every_executed_tool_call_counts():
    agent = Agent(TestModel())

    @agent.tool_plain
    def one() -> int:
        return 1

    @agent.tool_plain
    def two() -> int:
        return 2

    result = await agent.run('go')

    assert (result.usage().requests, result.usage().tool_calls) == (2, 2)


async def test_retried_tool_calls_do_not_count_as_tool_calls():
    attempts: list[int] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if sum(isinstance(m, ModelRequest) for m in messages) < 3:
            return ModelResponse(parts=[ToolCallPart('shaky', {})])
        return ModelResponse(parts=[TextPart('ok')])

    agent = Agent(FunctionModel(respond), retries=2)

    @agent.tool_plain
    def shaky() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise ModelRetry('once more')
        return 'fine'

    result = await agent.run('go')

    assert len(attempts) == 2
    assert (result.usage().requests, result.usage().tool_calls) == (3, 1)


async def test_usage_passed_in_accumulates_across_runs():
    agent, _ = agent_with_again_tool(costly(5, 2, then_text=True))
    shared = RunUsage()

    first = await agent.run('one', usage=shared)
    second = await agent.run('two', usage=shared)

    # Each result shows the shared usage as it stands (a copy, so reading it cannot change the runs' count).
    assert first.usage == second.usage == shared
    assert (shared.requests, shared.tool_calls, shared.input_tokens, shared.output_tokens) == (4, 2, 20, 8)


async def test_usage_passed_in_counts_towards_the_limits():
    agent, calls = agent_with_again_tool(costly(5, 2, then_text=True))
    earlier = RunUsage(requests=1, input_tokens=96)

    with pytest.raises(UsageLimitExceeded, match='input_tokens_limit'):
        await agent.run('go', usage=earlier, usage_limits=UsageLimits(input_tokens_limit=100))

    assert calls == []
    assert (earlier.requests, earlier.input_tokens) == (2, 101)


async def test_usage_of_an_unfinished_run_is_visible_from_iter():
    agent, _ = agent_with_again_tool(costly(3, 1, then_text=True))

    seen: list[int] = []
    async with agent.iter('go') as agent_run:
        async for _ in agent_run:
            seen.append(agent_run.usage().requests)

    assert seen == [0, 0, 1, 1, 2, 2]


async def test_output_token_limit_stops_a_response_while_it_streams():
    async def three_words(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for word in ('one', 'two', 'three'):
            yield word

    agent = Agent(FunctionModel(stream_function=three_words))
    seen: list[str] = []

    async def stream() -> None:
        async with agent.run_stream('go', usage_limits=UsageLimits(output_tokens_limit=2)) as result:
            async for text in result.stream_text(delta=True, debounce_by=None):
                seen.append(text)

    with pytest.raises(UsageLimitExceeded, match='output_tokens_limit of 2'):
        await stream()

    # The words within the limit arrived; the one that passed it never did.
    assert seen == ['one', 'two']


async def test_an_error_inside_a_run_stream_block_leaves_the_block_with_that_error():
    agent = Agent(TestModel())

    async def leave_with_error() -> None:
        async with agent.run_stream('go'):
            raise LookupError('caller gave up')

    with pytest.raises(LookupError, match='caller gave up'):
        await asyncio.wait_for(leave_with_error(), timeout=5)
