"""Function tools in real agent runs: timeouts, concurrency and ordering, and the end strategy."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from agent import Agent, Tool
from agent.messages import ModelMessage, ModelRequest, ModelResponse, RetryPromptPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel

from ._agent_helpers import call, calls, parts_of, scripted, text


async def let_other_tasks_run(rounds: int = 5) -> None:
    """Give the event loop a few turns, so concurrently scheduled tools would get to start."""
    loop = asyncio.get_running_loop()
    for _ in range(rounds):
        turn = loop.create_future()
        loop.call_soon(turn.set_result, None)
        await turn


# ----- timeouts -----


async def test_tool_plain_timeout_sends_a_retry_prompt_mentioning_the_timeout():
    never = asyncio.Event()
    agent = Agent(scripted(call('stuck', {}, 'c1'), text('gave up')))

    @agent.tool_plain(timeout=0.05)
    async def stuck() -> str:
        await never.wait()
        return 'unreachable'

    result = await agent.run('go')

    assert result.output == 'gave up'
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert (retry.tool_name, retry.tool_call_id) == ('stuck', 'c1')
    assert 'timed out' in retry.content.lower()
    assert '0.05' in retry.content


async def test_tool_object_timeout_sends_a_retry_prompt():
    never = asyncio.Event()

    async def wait_forever() -> str:
        await never.wait()
        return 'unreachable'

    agent = Agent(scripted(call('wait_forever'), text('moved on')), tools=[Tool(wait_forever, timeout=0.05)])

    result = await agent.run('go')

    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert 'timed out' in retry.content.lower()
    assert result.output == 'moved on'


async def test_agent_tool_timeout_applies_to_tools_without_their_own():
    never = asyncio.Event()
    agent = Agent(scripted(call('slow'), text('next')), tool_timeout=0.05)

    @agent.tool_plain
    async def slow() -> str:
        await never.wait()
        return 'unreachable'

    result = await agent.run('go')

    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert 'timed out' in retry.content.lower()


async def test_timeout_error_raised_by_a_tool_without_timeout_propagates():
    agent = Agent(scripted(call('upstream'), text('unreachable')))

    @agent.tool_plain
    async def upstream() -> str:
        raise TimeoutError('the upstream service did not answer')

    with pytest.raises(TimeoutError, match='upstream service'):
        await agent.run('go')


async def test_timeout_error_raised_by_a_tool_before_its_deadline_propagates():
    agent = Agent(scripted(call('upstream'), text('unreachable')))

    @agent.tool_plain(timeout=5)
    async def upstream() -> str:
        raise TimeoutError('the upstream service did not answer')

    with pytest.raises(TimeoutError, match='upstream service'):
        await agent.run('go')


# ----- concurrency and ordering -----


async def test_async_tools_in_one_response_run_concurrently():
    a_started, b_started = asyncio.Event(), asyncio.Event()
    agent = Agent(scripted(calls(ToolCallPart('tool_a', {}), ToolCallPart('tool_b', {})), text('both done')))

    @agent.tool_plain
    async def tool_a() -> str:
        a_started.set()
        await asyncio.wait_for(b_started.wait(), 5)
        return 'a saw b'

    @agent.tool_plain
    async def tool_b() -> str:
        b_started.set()
        await asyncio.wait_for(a_started.wait(), 5)
        return 'b saw a'

    result = await agent.run('go')

    assert [p.content for p in parts_of(result.all_messages(), ToolReturnPart)] == ['a saw b', 'b saw a']
    assert parts_of(result.all_messages(), RetryPromptPart) == []


async def test_sequential_tools_never_overlap_and_run_in_call_order():
    active = 0
    max_active = 0
    order: list[str] = []
    agent = Agent(
        scripted(
            calls(ToolCallPart('step', {'label': 'first'}), ToolCallPart('step', {'label': 'second'})),
            calls(*[ToolCallPart('step', {'label': label}) for label in ('a', 'b', 'c')]),
            text('done'),
        )
    )

    @agent.tool_plain(sequential=True)
    async def step(label: str) -> str:
        nonlocal active, max_active
        active += 1
        max_active = max(max_active, active)
        order.append(label)
        await let_other_tasks_run()
        active -= 1
        return label

    result = await agent.run('go')

    assert max_active == 1
    assert order == ['first', 'second', 'a', 'b', 'c']
    assert [p.content for p in parts_of(result.all_messages(), ToolReturnPart)] == order


async def test_a_sequential_tool_waits_for_parallel_tools_before_it():
    log: list[str] = []
    agent = Agent(
        scripted(
            calls(
                ToolCallPart('parallel', {'label': 'p1'}),
                ToolCallPart('barrier', {}),
                ToolCallPart('parallel', {'label': 'p2'}),
            ),
            text('done'),
        )
    )

    @agent.tool_plain
    async def parallel(label: str) -> str:
        log.append(f'start {label}')
        await let_other_tasks_run()
        log.append(f'end {label}')
        return label

    @agent.tool_plain(sequential=True)
    async def barrier() -> str:
        log.append('barrier')
        return 'barrier'

    await agent.run('go')

    assert log == ['start p1', 'end p1', 'barrier', 'start p2', 'end p2']


async def test_tool_results_are_in_call_order_even_when_they_finish_out_of_order():
    fast_done = asyncio.Event()
    finished: list[str] = []
    agent = Agent(
        scripted(
            calls(ToolCallPart('slow', {}, 'c-slow'), ToolCallPart('fast', {}, 'c-fast')),
            text('done'),
        )
    )

    @agent.tool_plain
    async def slow() -> str:
        await asyncio.wait_for(fast_done.wait(), 5)
        finished.append('slow')
        return 'slow result'

    @agent.tool_plain
    async def fast() -> str:
        finished.append('fast')
        fast_done.set()
        return 'fast result'

    result = await agent.run('go')

    assert finished == ['fast', 'slow']
    returns = parts_of(result.all_messages(), ToolReturnPart)
    assert [(p.tool_call_id, p.content) for p in returns] == [('c-slow', 'slow result'), ('c-fast', 'fast result')]


async def test_sync_tools_in_one_response_run_concurrently_in_threads():
    import threading

    first_started, second_started = threading.Event(), threading.Event()
    agent = Agent(scripted(calls(ToolCallPart('first', {}), ToolCallPart('second', {})), text('done')))

    @agent.tool_plain
    def first() -> bool:
        first_started.set()
        return second_started.wait(5)

    @agent.tool_plain
    def second() -> bool:
        second_started.set()
        return first_started.wait(5)

    result = await agent.run('go')

    assert [p.content for p in parts_of(result.all_messages(), ToolReturnPart)] == [True, True]


# ----- end strategy -----


@dataclass
class Answer:
    value: int


def output_and_side_tool(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return calls(ToolCallPart('final_result', {'value': 1}, 'c-out'), ToolCallPart('side', {}, 'c-side'))


async def test_early_end_strategy_skips_function_tools_called_with_the_output_tool():
    ran: list[str] = []
    agent = Agent(FunctionModel(output_and_side_tool), output_type=Answer, end_strategy='early')

    @agent.tool_plain
    def side() -> str:
        ran.append('side')
        return 'side effect'

    result = await agent.run('go')

    assert result.output == Answer(1)
    assert ran == []
    returns = {p.tool_call_id: p.content for p in parts_of(result.all_messages(), ToolReturnPart)}
    assert returns['c-side'].startswith('Tool not executed')
    assert returns['c-out'] == 'Final result processed.'


async def test_exhaustive_end_strategy_runs_function_tools_called_with_the_output_tool():
    ran: list[str] = []
    agent = Agent(FunctionModel(output_and_side_tool), output_type=Answer, end_strategy='exhaustive')

    @agent.tool_plain
    def side() -> str:
        ran.append('side')
        return 'side effect'

    result = await agent.run('go')

    assert result.output == Answer(1)
    assert ran == ['side']
    returns = {p.tool_call_id: p.content for p in parts_of(result.all_messages(), ToolReturnPart)}
    assert returns == {'c-out': 'Final result processed.', 'c-side': 'side effect'}
    last = result.all_messages()[-1]
    assert isinstance(last, ModelRequest)
    assert [p.tool_call_id for p in last.parts if isinstance(p, ToolReturnPart)] == ['c-out', 'c-side']
    assert len(last.parts) == 2


def _two_answers_and_a_side_call(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    name = info.output_tools[0].name
    return ModelResponse(
        parts=[
            ToolCallPart('side', {}, 'c-side'),
            ToolCallPart(name, {'value': 1}, 'c-first'),
            ToolCallPart(name, {'value': -1}, 'c-second'),
        ]
    )


@pytest.mark.parametrize(
    ('end_strategy', 'second', 'side_result'),
    [
        ('early', 'Output tool not used - a final result was already processed.', 'Tool not executed'),
        ('graceful', 'Output tool not used - a final result was already processed.', 'side effect'),
        ('exhaustive', 'Output tool not used - output failed validation.', 'side effect'),
    ],
)
async def test_end_strategies_answer_output_tools_first_then_the_function_tools(
    end_strategy: str, second: str, side_result: str
):
    checked: list[int] = []

    @dataclass
    class Positive:
        value: int

        def __post_init__(self) -> None:
            checked.append(self.value)
            if self.value < 0:
                raise ValueError('must be positive')

    agent = Agent(FunctionModel(_two_answers_and_a_side_call), output_type=Positive, end_strategy=end_strategy)  # type: ignore[arg-type]

    @agent.tool_plain
    def side() -> str:
        return 'side effect'

    result = await agent.run('go')

    assert isinstance(result.output, Positive)
    assert result.output.value == 1
    # 'exhaustive' looks at the second answer too (and drops it); the others never do.
    assert checked == ([1, -1] if end_strategy == 'exhaustive' else [1])
    last = result.all_messages()[-1]
    assert isinstance(last, ModelRequest)
    assert [
        (getattr(p, 'tool_call_id', None), str(p.content)[: len(expected)])
        for p, expected in zip(last.parts, ['Final result processed.', second, side_result], strict=True)
    ] == [
        ('c-first', 'Final result processed.'),
        ('c-second', second),
        ('c-side', side_result),
    ]
