"""Concurrency limits: `ConcurrencyLimiter` and models limited with `limit_model_concurrency`."""

from __future__ import annotations

import asyncio

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agent import (
    Agent,
    ConcurrencyLimit,
    ConcurrencyLimitedModel,
    ConcurrencyLimiter,
    ConcurrencyLimitExceeded,
    limit_model_concurrency,
)
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models.function import AgentInfo, FunctionModel


async def test_a_limiter_admits_max_running_and_queues_the_rest() -> None:
    limiter = ConcurrencyLimiter(2)
    await limiter.acquire('a')
    await limiter.acquire('b')

    third = asyncio.create_task(limiter.acquire('c'))
    await asyncio.sleep(0)
    assert not third.done()
    assert (limiter.running_count, limiter.waiting_count) == (2, 1)

    limiter.release()
    await asyncio.wait_for(third, 5)
    assert (limiter.running_count, limiter.waiting_count, limiter.available_count) == (2, 0, 0)


async def test_a_full_queue_refuses_the_next_caller() -> None:
    limiter = ConcurrencyLimiter.from_limit(ConcurrencyLimit(max_running=1, max_queued=0), name='shared')
    await limiter.acquire('first')

    with pytest.raises(ConcurrencyLimitExceeded, match="'shared' is full for second"):
        await limiter.acquire('second')


async def test_a_cancelled_waiter_leaves_the_queue() -> None:
    limiter = ConcurrencyLimiter(1)
    await limiter.acquire('holder')
    waiter = asyncio.create_task(limiter.acquire('waiter'))
    await asyncio.sleep(0)

    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter

    assert limiter.waiting_count == 0
    limiter.release()
    assert limiter.running_count == 0


async def test_a_limited_model_runs_one_request_at_a_time() -> None:
    running = 0
    most = 0

    async def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal running, most
        running += 1
        most = max(most, running)
        for _ in range(20):  # yield to the other runs, which would enter here too without the limit
            await asyncio.sleep(0)
        running -= 1
        return ModelResponse(parts=[TextPart('ok')])

    model = limit_model_concurrency(FunctionModel(answer), 1)
    agent = Agent(model)

    results = await asyncio.wait_for(asyncio.gather(*(agent.run(f'q{i}') for i in range(3))), 5)

    assert [r.output for r in results] == ['ok', 'ok', 'ok']
    assert most == 1


def test_no_limit_leaves_the_model_as_it_is() -> None:
    model = FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart('ok')]))

    assert limit_model_concurrency(model, None) is model


async def test_an_agents_max_concurrency_makes_its_runs_take_turns() -> None:
    first_inside = asyncio.Event()
    let_first_finish = asyncio.Event()
    entered: list[str] = []

    async def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt = str(messages[0].parts[0].content)  # pyright: ignore[reportAttributeAccessIssue]
        entered.append(prompt)
        if prompt == 'first':
            first_inside.set()
            await let_first_finish.wait()
        return ModelResponse(parts=[TextPart(f'{prompt} done')])

    agent = Agent(FunctionModel(model), max_concurrency=1)
    first = asyncio.create_task(agent.run('first'))
    await asyncio.wait_for(first_inside.wait(), 5)
    second = asyncio.create_task(agent.run('second'))
    # The second run is queued behind the first, which holds the only slot: its model is not asked yet.
    for _ in range(20):
        await asyncio.sleep(0)
    assert entered == ['first']

    let_first_finish.set()
    results = await asyncio.wait_for(asyncio.gather(first, second), 5)
    assert [r.output for r in results] == ['first done', 'second done']
    assert entered == ['first', 'second']


async def test_an_agents_full_run_queue_refuses_the_next_run() -> None:
    release = asyncio.Event()
    inside = asyncio.Event()

    async def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        inside.set()
        await release.wait()
        return ModelResponse(parts=[TextPart('ok')])

    agent = Agent(FunctionModel(model), max_concurrency=ConcurrencyLimit(max_running=1, max_queued=0))
    holder = asyncio.create_task(agent.run('hold'))
    await asyncio.wait_for(inside.wait(), 5)

    with pytest.raises(ConcurrencyLimitExceeded):
        await agent.run('one too many')

    release.set()
    assert (await asyncio.wait_for(holder, 5)).output == 'ok'


async def test_waiting_for_a_slot_is_recorded_as_a_span_on_the_limiters_tracer() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    limiter = ConcurrencyLimiter(1, max_queued=3, name='pool', tracer=provider.get_tracer('test'))
    await limiter.acquire('holder')
    waiter = asyncio.create_task(limiter.acquire('model:gpt'))
    await asyncio.sleep(0)
    assert exporter.get_finished_spans() == ()

    limiter.release()
    await asyncio.wait_for(waiter, 5)

    (span,) = exporter.get_finished_spans()
    assert span.name == 'waiting for pool concurrency'
    assert dict(span.attributes or {}) == {
        'source': 'model:gpt',
        'waiting_count': 1,
        'max_running': 1,
        'limiter_name': 'pool',
        'max_queued': 3,
    }


def test_a_limited_model_exposes_its_limiter_under_pydantic_ais_private_name_too() -> None:
    model = limit_model_concurrency(FunctionModel(lambda m, i: ModelResponse(parts=[])), 3)
    assert isinstance(model, ConcurrencyLimitedModel)
    assert model._limiter is model.limiter
