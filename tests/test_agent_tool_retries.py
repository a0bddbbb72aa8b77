"""Function tools in real agent runs: bad calls become retry prompts, and the retry budget per tool and per agent."""

from __future__ import annotations

import pytest

from agent import Agent, ModelRetry, RunContext
from agent.exceptions import ToolRetriesExhausted, UnexpectedModelBehavior
from agent.messages import RetryPromptPart, ToolCallPart, ToolReturnPart

from ._agent_helpers import call, calls, parts_of, scripted, text

# ----- bad calls become retry prompts -----


async def test_invalid_json_args_become_a_retry_prompt_and_the_run_continues():
    received: list[int] = []
    agent = Agent(scripted(call('t', '{not json', 'c1'), call('t', '{"x": 7}', 'c2'), text('recovered')))

    @agent.tool_plain
    def t(x: int) -> int:
        received.append(x)
        return x

    result = await agent.run('go')

    assert result.output == 'recovered'
    assert received == [7]
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert (retry.tool_name, retry.tool_call_id) == ('t', 'c1')
    assert isinstance(retry.content, list)
    assert retry.content[0]['type'] == 'json_invalid'


async def test_schema_invalid_args_retry_prompt_lists_each_error():
    agent = Agent(scripted(call('add', {'x': 'abc'}), call('add', {'x': 1, 'y': 2}), text('3')))

    @agent.tool_plain
    def add(x: int, y: int) -> int:
        return x + y

    result = await agent.run('add')

    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert isinstance(retry.content, list)
    assert sorted((e['type'], e['loc']) for e in retry.content) == [('int_parsing', ('x',)), ('missing', ('y',))]
    assert retry.model_response().startswith('2 validation errors:')
    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == 3


async def test_unknown_tool_name_gets_a_retry_prompt_listing_the_available_tools():
    agent = Agent(scripted(call('nope', {}, 'c1'), text('sorry')))

    @agent.tool_plain
    def alpha() -> str:
        return 'a'

    @agent.tool_plain
    def beta() -> str:
        return 'b'

    result = await agent.run('go')

    assert result.output == 'sorry'
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert (retry.tool_name, retry.tool_call_id) == ('nope', 'c1')
    assert 'Unknown tool name' in retry.content
    assert "'nope'" in retry.content
    assert 'alpha' in retry.content
    assert 'beta' in retry.content


async def test_model_retry_from_a_tool_is_sent_back_and_ctx_retry_counts_up():
    seen_retries: list[int] = []
    agent = Agent(
        scripted(call('pick', {'n': 1}, 'c1'), call('pick', {'n': 50}, 'c2'), text('done')),
        retries=3,
    )

    @agent.tool
    def pick(ctx: RunContext[None], n: int) -> int:
        seen_retries.append(ctx.retry)
        if n < 10:
            raise ModelRetry('Pick a number of at least 10.')
        return n

    result = await agent.run('pick')

    assert seen_retries == [0, 1]
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert (retry.content, retry.tool_name, retry.tool_call_id) == ('Pick a number of at least 10.', 'pick', 'c1')
    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == 50


async def test_exceeding_a_tools_retries_raises_tool_retries_exhausted_naming_the_tool():
    agent = Agent(scripted(call('flaky'), call('flaky'), call('flaky'), text('unreachable')))

    @agent.tool_plain(retries=1)
    def flaky() -> str:
        raise ModelRetry('still broken')

    with pytest.raises(UnexpectedModelBehavior, match='flaky') as exc_info:
        await agent.run('go')

    assert isinstance(exc_info.value, ToolRetriesExhausted)
    assert exc_info.value.tool_name == 'flaky'


async def test_agent_retries_is_the_default_tool_retry_budget():
    attempts: list[int] = []
    agent = Agent(scripted(*[call('flaky')] * 4), retries=2)

    @agent.tool
    def flaky(ctx: RunContext[None]) -> str:
        attempts.append(ctx.retry)
        raise ModelRetry('again')

    with pytest.raises(ToolRetriesExhausted):
        await agent.run('go')

    assert attempts == [0, 1, 2]


async def test_tool_retry_count_resets_after_the_tool_succeeds():
    seen: list[int] = []
    outcomes = iter(['fail', 'ok', 'fail', 'ok'])
    agent = Agent(scripted(*[call('sometimes')] * 4, text('done')), retries=1)

    @agent.tool
    def sometimes(ctx: RunContext[None]) -> str:
        seen.append(ctx.retry)
        if next(outcomes) == 'fail':
            raise ModelRetry('once more')
        return 'fine'

    result = await agent.run('go')

    assert result.output == 'done'
    assert seen == [0, 1, 0, 1]


# ----- retry budget -----


async def test_retry_budget_is_visible_to_the_tool():
    seen: list[tuple[int, int, bool]] = []
    agent = Agent(scripted(call('careful'), call('careful'), text('done')))

    @agent.tool(retries=1)
    def careful(ctx: RunContext[None]) -> str:
        seen.append((ctx.retry, ctx.max_retries, ctx.last_attempt))
        if not ctx.last_attempt:
            raise ModelRetry('not yet')
        return 'finally'

    await agent.run('go')

    assert seen == [(0, 1, False), (1, 1, True)]


async def test_calling_an_unknown_tool_past_the_tool_retry_budget_names_the_tool():
    agent = Agent(scripted(call('ghost'), call('ghost'), call('ghost')), retries={'tools': 1, 'output': 5})

    with pytest.raises(ToolRetriesExhausted, match="Tool 'ghost' exceeded max retries count of 1"):
        await agent.run('go')


async def test_unknown_tool_calls_do_not_use_the_output_retries():
    agent = Agent(
        scripted(
            call('ghost'), call('phantom'), calls(ToolCallPart('ghost', {}), ToolCallPart('ghost', {})), text('ok')
        ),
        retries={'tools': 2, 'output': 0},
    )

    result = await agent.run('go')

    assert result.output == 'ok'
    prompts = parts_of(result.all_messages(), RetryPromptPart)
    assert [p.content for p in prompts][:2] == [
        "Unknown tool name: 'ghost'. No tools available.",
        "Unknown tool name: 'phantom'. No tools available.",
    ]


async def test_several_failing_calls_of_one_tool_in_a_response_use_one_retry():
    received: list[int] = []
    agent = Agent(
        scripted(
            calls(ToolCallPart('t', {'x': 'a'}), ToolCallPart('t', {'x': 'b'})),
            calls(ToolCallPart('t', {'x': 1}), ToolCallPart('t', {'x': 2})),
            text('done'),
        ),
        retries=1,
    )

    @agent.tool_plain
    def t(x: int) -> int:
        received.append(x)
        return x

    result = await agent.run('go')

    assert result.output == 'done'
    assert sorted(received) == [1, 2]
    assert len(parts_of(result.all_messages(), RetryPromptPart)) == 2
