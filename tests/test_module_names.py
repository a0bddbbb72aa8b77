"""Names Pydantic AI users import from `agent.agent`, `agent.capabilities` and `agent.concurrency` behave as there."""

from __future__ import annotations

import asyncio

import pytest

from agent import Agent, AgentRunResult, RunContext
from agent.agent import AgentRun, EventStreamHandler
from agent.agent import AgentRunResult as AgentPackageRunResult
from agent.capabilities import CAPABILITY_TYPES, WebSearch
from agent.concurrency import ConcurrencyLimiter, get_concurrency_context
from agent.exceptions import UserError


def test_agent_package_exports_the_run_types_of_agent_run() -> None:
    result = Agent('test').run_sync('Hi')

    assert isinstance(result, AgentPackageRunResult)
    assert AgentPackageRunResult is AgentRunResult
    assert AgentRun.__module__ == 'agent.run'


def test_capability_types_name_each_capability_an_agent_spec_can_use() -> None:
    assert CAPABILITY_TYPES['WebSearch'] is WebSearch
    assert all(cls.get_serialization_name() == name for name, cls in CAPABILITY_TYPES.items())
    spec_agent = Agent.from_spec({'model': 'test', 'capabilities': [{'ReinjectSystemPrompt': {}}]})
    assert spec_agent.run_sync('Hi').output


def test_an_unknown_capability_name_in_a_spec_is_refused() -> None:
    assert 'NoSuchCapability' not in CAPABILITY_TYPES
    with pytest.raises(UserError, match='NoSuchCapability'):
        Agent.from_spec({'model': 'test', 'capabilities': ['NoSuchCapability']})


async def test_get_concurrency_context_holds_a_slot_of_the_limiter_while_entered() -> None:
    limiter = ConcurrencyLimiter(1)
    inside = asyncio.Event()
    release = asyncio.Event()

    async def hold() -> None:
        async with get_concurrency_context(limiter, 'first'):
            inside.set()
            await release.wait()

    holder = asyncio.create_task(hold())
    await inside.wait()
    second = asyncio.create_task(get_concurrency_context(limiter, 'second').__aenter__())
    await asyncio.sleep(0.05)
    assert not second.done()
    release.set()
    await holder
    await asyncio.wait_for(second, 1)


async def test_get_concurrency_context_without_a_limiter_does_nothing() -> None:
    async with get_concurrency_context(None):
        pass


async def test_an_event_stream_handler_typed_with_the_alias_receives_the_events() -> None:
    seen: list[str] = []

    async def handler(ctx: RunContext[None], events: object) -> None:
        async for event in events:  # type: ignore[attr-defined]
            seen.append(type(event).__name__)

    typed: EventStreamHandler = handler
    await Agent('test', event_stream_handler=typed).run('Hi')

    assert 'PartStartEvent' in seen
