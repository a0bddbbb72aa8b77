"""A run dropped from memory mid-step closes quietly, whatever order the garbage collector closes its parts in.

A Temporal worker that cannot evict a run in time drops its workflow instance, and the garbage collector closes the
run's coroutines and generators. An exception raised while a coroutine closes can only be printed by Python as one
it ignored (and fails the test during which the collection happened): none may be.
"""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import AsyncIterator, Generator, Iterator
from contextlib import asynccontextmanager, contextmanager, nullcontext
from typing import Any

import pytest

from agent import Agent
from agent.graph import End
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models.function import AgentInfo, FunctionModel
from workflows._agent_workflow import ClosedQuietly


@contextmanager
def ignored_exceptions() -> Iterator[list[BaseException | None]]:
    """The exceptions Python reports as ignored (`sys.unraisablehook`) while the block runs."""
    seen: list[BaseException | None] = []
    previous = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: seen.append(unraisable.exc_value)
    try:
        yield seen
    finally:
        sys.unraisablehook = previous


def test_an_agent_run_whose_event_loop_is_gone_is_collected_without_an_ignored_exception() -> None:
    reached = asyncio.Event()

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        reached.set()
        await asyncio.get_running_loop().create_future()  # never answers: the run is dropped while it waits
        return ModelResponse(parts=[TextPart('never')])

    agent = Agent(FunctionModel(respond), name='dropped')

    async def drive() -> None:
        async with agent.iter('hi') as run:
            node = run.next_node
            while not isinstance(node, End):
                node = await run.next(node)

    def start_and_drop() -> None:
        loop = asyncio.new_event_loop()
        task = loop.create_task(drive())
        loop.run_until_complete(reached.wait())
        assert not task.done()
        loop.close()  # as an evicted workflow's loop: its tasks are left to the collector

    with ignored_exceptions() as seen:
        start_and_drop()
        gc.collect()
    assert seen == []


class _Suspend:
    """An awaitable that suspends its coroutine once (the coroutine is stepped by hand)."""

    def __await__(self) -> Generator[None]:
        yield


def _step_until_suspended(coroutine: Any) -> None:
    coroutine.send(None)


def _close_first(generator: Any) -> None:
    """Close an async generator suspended at its `yield` (as the collector may, before the coroutine using it)."""
    closing = generator.aclose()
    try:
        closing.send(None)
    except StopIteration:
        return
    raise AssertionError('the generator did not close at once')


async def _run_in(manager: Any, guard: Any) -> None:
    with guard:
        async with manager:
            await _Suspend()


@asynccontextmanager
async def _block() -> AsyncIterator[None]:
    yield


def test_a_run_closed_after_its_context_managers_generator_closes_quietly() -> None:
    manager = _block()
    coroutine = _run_in(manager, ClosedQuietly())
    _step_until_suspended(coroutine)
    _close_first(manager.gen)
    coroutine.close()  # no "generator didn't stop after athrow()"


def test_without_the_guard_that_order_raises_while_the_coroutine_closes() -> None:
    manager = _block()
    coroutine = _run_in(manager, nullcontext())
    _step_until_suspended(coroutine)
    _close_first(manager.gen)
    with pytest.raises(RuntimeError, match=r"didn't stop after athrow\(\)"):
        coroutine.close()
