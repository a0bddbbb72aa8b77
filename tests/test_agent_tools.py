"""Function tools in real agent runs: context, validation, retries, timeouts, concurrency, approval, end strategy."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pydantic
import pytest

from agent import Agent, DeferredToolRequests, ModelRetry, RunContext, Tool, ToolReturn
from agent.exceptions import ToolRetriesExhausted, UnexpectedModelBehavior
from agent.messages import (
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel

Step = ModelResponse | Callable[[list[ModelMessage], AgentInfo], ModelResponse]


def scripted(*steps: Step) -> FunctionModel:
    """A model that answers each request with the next scripted response (or the response a step function builds)."""
    remaining = list(steps)

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert remaining, 'the model was asked more often than the test scripted'
        step = remaining.pop(0)
        return step(messages, info) if callable(step) else step

    return FunctionModel(respond)


def call(tool_name: str, args: str | dict[str, Any] | None = None, call_id: str | None = None) -> ModelResponse:
    part = ToolCallPart(tool_name, args) if call_id is None else ToolCallPart(tool_name, args, call_id)
    return ModelResponse(parts=[part])


def calls(*parts: ToolCallPart) -> ModelResponse:
    return ModelResponse(parts=list(parts))


def text(content: str) -> ModelResponse:
    return ModelResponse(parts=[TextPart(content)])


def request_parts(messages: list[ModelMessage]) -> list[Any]:
    return [part for m in messages if isinstance(m, ModelRequest) for part in m.parts]


def parts_of(messages: list[ModelMessage], kind: type) -> list[Any]:
    return [part for part in request_parts(messages) if isinstance(part, kind)]


async def let_other_tasks_run(rounds: int = 5) -> None:
    """Give the event loop a few turns, so concurrently scheduled tools would get to start."""
    loop = asyncio.get_running_loop()
    for _ in range(rounds):
        turn = loop.create_future()
        loop.call_soon(turn.set_result, None)
        await turn


# ----- registration and RunContext -----


async def test_context_tool_sees_deps_call_id_retry_and_run_step():
    seen: list[tuple[Any, ...]] = []
    agent = Agent(scripted(call('lookup', {'key': 'colour'}, 'call-42'), text('done')), deps_type=str)

    @agent.tool
    def lookup(ctx: RunContext[str], key: str) -> str:
        seen.append((ctx.deps, ctx.tool_call_id, ctx.tool_name, ctx.retry, ctx.run_step))
        return f'{key} is blue'

    result = await agent.run('What colour?', deps='the-deps')

    assert seen == [('the-deps', 'call-42', 'lookup', 0, 1)]
    assert result.output == 'done'
    [tool_return] = parts_of(result.all_messages(), ToolReturnPart)
    assert (tool_return.tool_name, tool_return.content, tool_return.tool_call_id) == (
        'lookup',
        'colour is blue',
        'call-42',
    )


async def test_run_step_counts_model_requests_seen_by_tools():
    steps: list[int] = []
    agent = Agent(scripted(call('probe'), call('probe'), text('done')))

    @agent.tool
    async def probe(ctx: RunContext[None]) -> int:
        steps.append(ctx.run_step)
        return ctx.run_step

    await agent.run('go')

    assert steps == [1, 2]


async def test_plain_tool_result_goes_back_to_the_model():
    agent = Agent(TestModel())

    @agent.tool_plain
    def double(x: int) -> int:
        """Double a number."""
        return x * 2

    result = await agent.run('Double it')

    [tool_return] = parts_of(result.all_messages(), ToolReturnPart)
    assert (tool_return.tool_name, tool_return.content) == ('double', 0)
    assert result.output == '{"double":0}'


async def test_tools_passed_as_tool_objects_are_offered_and_called():
    offered: list[list[str]] = []

    def shout(word: str) -> str:
        """Shout a word."""
        return word.upper()

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append([t.name for t in info.function_tools])
        if len(messages) == 1:
            return call('yell', {'word': 'hey'})
        return text('ok')

    agent = Agent(FunctionModel(respond), tools=[Tool(shout, name='yell', description='Make it loud.')])

    result = await agent.run('Shout')

    assert offered == [['yell'], ['yell']]
    [tool_return] = parts_of(result.all_messages(), ToolReturnPart)
    assert tool_return.content == 'HEY'


async def test_plain_functions_in_tools_infer_whether_they_take_the_context():
    def with_ctx(ctx: RunContext[int], n: int) -> int:
        return ctx.deps + n

    def without_ctx(n: int) -> int:
        return -n

    agent = Agent(
        scripted(calls(ToolCallPart('with_ctx', {'n': 1}), ToolCallPart('without_ctx', {'n': 1})), text('ok')),
        deps_type=int,
        tools=[with_ctx, without_ctx],
    )

    result = await agent.run('go', deps=10)

    assert [p.content for p in parts_of(result.all_messages(), ToolReturnPart)] == [11, -1]


class Item(pydantic.BaseModel):
    sku: str
    quantity: int = 1


class Order(pydantic.BaseModel):
    customer: str
    items: list[Item]


async def test_tool_args_with_nested_models_are_validated_into_model_instances():
    received: list[Order] = []
    schemas: list[dict[str, Any]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            schemas.append(info.function_tools[0].parameters_json_schema)
            return call('place_order', '{"order": {"customer": "ann", "items": [{"sku": "A1", "quantity": "3"}]}}')
        return text('placed')

    agent = Agent(FunctionModel(respond))

    @agent.tool_plain
    def place_order(order: Order) -> int:
        received.append(order)
        return sum(item.quantity for item in order.items)

    result = await agent.run('Order things')

    assert received == [Order(customer='ann', items=[Item(sku='A1', quantity=3)])]
    assert isinstance(received[0].items[0], Item)
    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == 3
    assert '$defs' in schemas[0]
    assert {'Item', 'Order'} <= set(schemas[0]['$defs'])


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


# ----- richer results -----


async def test_tool_return_with_content_adds_a_user_prompt_after_all_the_returns():
    image = ImageUrl('https://example.com/chart.png')
    agent = Agent(scripted(calls(ToolCallPart('chart', {}), ToolCallPart('note', {})), text('seen')))

    @agent.tool_plain
    def chart() -> ToolReturn:
        return ToolReturn(return_value='chart attached', content=['Here is the chart:', image], metadata={'px': 64})

    @agent.tool_plain
    def note() -> str:
        return 'noted'

    result = await agent.run('Draw')

    tool_results = result.all_messages()[2]
    assert isinstance(tool_results, ModelRequest)
    assert [type(p) for p in tool_results.parts] == [ToolReturnPart, ToolReturnPart, UserPromptPart]
    first, second, extra = tool_results.parts
    assert isinstance(first, ToolReturnPart)
    assert (first.content, first.metadata) == ('chart attached', {'px': 64})
    assert isinstance(second, ToolReturnPart)
    assert second.content == 'noted'
    assert isinstance(extra, UserPromptPart)
    assert extra.content == ['Here is the chart:', image]


async def test_args_validator_raising_model_retry_sends_a_retry_prompt_before_the_tool_runs():
    ran_with: list[int] = []
    validated: list[tuple[int, int]] = []

    def positive(ctx: RunContext[None], amount: int) -> None:
        validated.append((amount, ctx.retry))
        if amount <= 0:
            raise ModelRetry('amount must be positive')

    agent = Agent(scripted(call('pay', {'amount': -5}, 'c1'), call('pay', {'amount': 5}, 'c2'), text('paid')))

    @agent.tool_plain(args_validator=positive)
    def pay(amount: int) -> str:
        ran_with.append(amount)
        return f'paid {amount}'

    result = await agent.run('pay')

    assert ran_with == [5]
    assert validated == [(-5, 0), (5, 1)]
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert (retry.content, retry.tool_name, retry.tool_call_id) == ('amount must be positive', 'pay', 'c1')


async def test_prepare_returning_none_hides_the_tool_from_the_model():
    offered: list[list[str]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append(sorted(t.name for t in info.function_tools))
        return text('ok')

    agent = Agent(FunctionModel(respond), deps_type=bool)

    async def only_for_admins(ctx: RunContext[bool], tool_def: Any) -> Any:
        return tool_def if ctx.deps else None

    @agent.tool(prepare=only_for_admins)
    def delete_everything(ctx: RunContext[bool]) -> str:
        return 'deleted'

    @agent.tool_plain
    def read() -> str:
        return 'read'

    await agent.run('go', deps=False)
    await agent.run('go', deps=True)

    assert offered == [['read'], ['delete_everything', 'read']]


async def test_calling_a_tool_hidden_by_prepare_is_an_unknown_tool():
    agent = Agent(scripted(call('hidden', {}), text('ok')))

    @agent.tool(prepare=lambda ctx, tool_def: None)
    def hidden(ctx: RunContext[None]) -> str:
        raise AssertionError('a hidden tool must not run')

    result = await agent.run('go')

    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert 'Unknown tool name' in retry.content


async def test_prepare_can_change_the_tool_description():
    descriptions: list[str | None] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        descriptions.extend(t.description for t in info.function_tools)
        return text('ok')

    agent = Agent(FunctionModel(respond), deps_type=str)

    async def describe(ctx: RunContext[str], tool_def: Any) -> Any:
        from dataclasses import replace

        return replace(tool_def, description=f'Greets in {ctx.deps}.')

    @agent.tool(prepare=describe)
    def greet(ctx: RunContext[str]) -> str:
        """Greets."""
        return 'hi'

    await agent.run('go', deps='French')

    assert descriptions == ['Greets in French.']


# ----- approval -----


async def test_tool_requiring_approval_ends_the_run_with_deferred_tool_requests():
    executed: list[str] = []
    agent = Agent(
        scripted(
            calls(ToolCallPart('delete_file', {'path': '/tmp/x'}, 'c-del'), ToolCallPart('list_files', {}, 'c-ls'))
        ),
        output_type=[str, DeferredToolRequests],
    )

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        executed.append(f'delete {path}')
        return 'deleted'

    @agent.tool_plain
    def list_files() -> list[str]:
        executed.append('list')
        return ['x']

    result = await agent.run('Clean up')

    assert isinstance(result.output, DeferredToolRequests)
    assert [c.tool_call_id for c in result.output.approvals] == ['c-del']
    assert result.output.approvals[0].args == {'path': '/tmp/x'}
    assert result.output.calls == []
    assert executed == ['list']
    last = result.all_messages()[-1]
    assert isinstance(last, ModelRequest)
    assert [(p.tool_call_id, p.content) for p in last.parts if isinstance(p, ToolReturnPart)] == [('c-ls', ['x'])]


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


# ----- more retry accounting -----


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


async def test_calling_unknown_tools_past_the_retry_budget_raises():
    agent = Agent(scripted(call('ghost'), call('ghost'), call('ghost')), retries=1)

    with pytest.raises(UnexpectedModelBehavior, match='Exceeded maximum retries'):
        await agent.run('go')


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


async def test_tool_requiring_approval_without_deferred_output_type_is_a_user_error():
    from agent.exceptions import UserError

    agent = Agent(scripted(call('delete_file', {'path': '/x'})))

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        return 'deleted'

    with pytest.raises(UserError, match='DeferredToolRequests'):
        await agent.run('go')
