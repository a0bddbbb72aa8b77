"""Concurrency limits: `ConcurrencyLimiter` and models limited with `limit_model_concurrency`."""

from __future__ import annotations

import asyncio

import pytest

from agent import Agent, ConcurrencyLimit, ConcurrencyLimiter, ConcurrencyLimitExceeded, limit_model_concurrency
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
