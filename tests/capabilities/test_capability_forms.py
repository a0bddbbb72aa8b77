"""The forms a capability can take: `Capability`, plain functions in `capabilities=[...]`, `ProcessEventStream`."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

import pytest

from agent import Agent, AgentStreamEvent, RunContext
from agent.capabilities import AbstractCapability, Capability, DynamicCapability, ProcessEventStream, ProcessHistory
from agent.exceptions import UserError
from agent.messages import FunctionToolCallEvent, ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel
from tests._agent_helpers import call, scripted, text


async def test_capability_bundles_instructions_and_tools_including_ones_registered_later():
    seen: list[Any] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        seen.append((last.instructions, sorted(t.name for t in info.function_tools)))
        return ModelResponse(parts=[TextPart('ok')])

    def forecast(city: str) -> str:
        return 'sunny'

    weather = Capability[None](instructions='Use Celsius.', tools=[forecast], id='weather')

    @weather.tool_plain
    def alerts(region: str) -> list[str]:
        return []

    @weather.instructions
    def today() -> str:
        return 'Today is Monday.'

    await Agent(FunctionModel(respond), capabilities=[weather]).run('weather?')

    assert seen == [('Use Celsius.\n\nToday is Monday.', ['alerts', 'forecast'])]


async def test_a_function_in_capabilities_chooses_the_capability_for_each_run():
    lengths: list[int] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        lengths.append(len(messages))
        return ModelResponse(parts=[TextPart('ok')])

    def keep_last(messages: list[ModelMessage]) -> list[ModelMessage]:
        return messages[-1:]

    def choose(ctx: RunContext[bool]) -> AbstractCapability[bool] | None:
        return ProcessHistory(keep_last) if ctx.deps else None

    agent = Agent(FunctionModel(respond), deps_type=bool, capabilities=[choose])
    first = await agent.run('one', deps=False)
    await agent.run('two', deps=False, message_history=first.all_messages())
    await agent.run('three', deps=True, message_history=first.all_messages())

    assert lengths == [1, 3, 1]


async def test_a_capability_function_returning_something_else_is_a_user_error():
    agent = Agent(scripted(text('ok')), capabilities=[lambda ctx: 'not a capability'])

    with pytest.raises(UserError, match='must return a capability or None'):
        await agent.run('go')
    assert isinstance(DynamicCapability(lambda ctx: None), AbstractCapability)


async def test_process_event_stream_watches_events_of_a_run_without_an_event_stream_handler():
    kinds: list[str] = []

    async def watch(ctx: RunContext[None], stream: AsyncIterable[AgentStreamEvent]) -> None:
        async for event in stream:
            kinds.append(event.event_kind)

    agent = Agent(scripted(call('ping', {}), text('done')), capabilities=[ProcessEventStream(watch)])

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    result = await agent.run('go')

    assert result.output == 'done'
    assert 'function_tool_call' in kinds
    assert 'function_tool_result' in kinds


async def test_process_event_stream_with_an_async_generator_rewrites_the_stream_others_see():
    async def drop_tool_calls(
        ctx: RunContext[None], stream: AsyncIterable[AgentStreamEvent]
    ) -> AsyncIterator[AgentStreamEvent]:
        async for event in stream:
            if not isinstance(event, FunctionToolCallEvent):
                yield event

    seen: list[str] = []

    async def handler(ctx: RunContext[None], stream: AsyncIterable[AgentStreamEvent]) -> None:
        async for event in stream:
            seen.append(event.event_kind)

    agent = Agent(
        scripted(ModelResponse(parts=[ToolCallPart('ping', {})]), text('done')),
        capabilities=[ProcessEventStream(drop_tool_calls)],
    )

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    await agent.run('go', event_stream_handler=handler)

    assert 'function_tool_result' in seen
    assert 'function_tool_call' not in seen


async def test_a_failing_event_watcher_fails_the_run():
    async def broken(ctx: RunContext[None], stream: AsyncIterable[AgentStreamEvent]) -> None:
        async for _ in stream:
            raise RuntimeError('watcher broke')

    agent = Agent(scripted(text('done')), capabilities=[ProcessEventStream(broken)])

    with pytest.raises(RuntimeError, match='watcher broke'):
        await agent.run('go')
