"""`ProcessEventStream` in a durable run: it runs in the activities, where the events happen, as in-process."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

import pytest
from temporalio.client import Client

from agent import Agent, RunContext
from agent.capabilities import ProcessEventStream
from agent.messages import (
    AgentStreamEvent,
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    ModelMessage,
    ModelRequest,
    PartDeltaEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ToolReturnPart,
)
from agent.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from worker import build_worker
from workflows import AgentRunInput, AgentWorkflow

pytestmark = pytest.mark.asyncio(loop_scope='session')


async def forecast_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    """Streams a `weather` call, then (once it has the result) a sentence in three pieces."""
    results = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    if not results:
        yield {0: DeltaToolCall(name='weather', json_args='{"city": "Oslo"}', tool_call_id='w-1')}
        return
    for piece in ('It is ', f'{results[0].content} ', 'in Oslo.'):
        yield piece


def describe(event: Any) -> str | None:
    """The events both kinds of run produce, as text (`None` for the others)."""
    if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
        return f'text:{event.part.content}'
    if isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
        return f'text:{event.delta.content_delta}'
    if isinstance(event, FunctionToolCallEvent):
        return f'call:{event.part.tool_name}'
    if isinstance(event, FunctionToolResultEvent):
        return f'result:{event.part.content}'
    return None


def weather_agent(*, capabilities: list[Any], handler: Any = None) -> Agent[None, str]:
    agent = Agent(
        FunctionModel(stream_function=forecast_stream),
        name='weather_events',
        capabilities=capabilities,
        event_stream_handler=handler,
    )

    @agent.tool_plain
    def weather(city: str) -> str:
        """Today's weather."""
        return 'sunny' if city == 'Oslo' else 'rainy'

    return agent


async def run_durably(client: Client, task_queue: str, agent: Agent[None, str]) -> str:
    async with build_worker(client, {'weather_events': agent}, task_queue=task_queue):
        output = await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='weather_events', prompt='Weather in Oslo?'),
            id=f'process-events-{uuid.uuid4()}',
            task_queue=task_queue,
        )
    return output.output


def watcher(seen: list[str]) -> ProcessEventStream[None]:
    async def watch(ctx: RunContext[None], stream: AsyncIterable[AgentStreamEvent]) -> None:
        async for event in stream:
            if (text := describe(event)) is not None:
                seen.append(text)

    return ProcessEventStream(watch)


async def test_a_watching_process_event_stream_sees_the_durable_runs_events_without_a_handler(
    client: Client, task_queue: str
) -> None:
    in_process: list[str] = []
    local = await weather_agent(capabilities=[watcher(in_process)]).run('Weather in Oslo?')
    durable: list[str] = []
    output = await run_durably(client, task_queue, weather_agent(capabilities=[watcher(durable)]))
    assert output == local.output == 'It is sunny in Oslo.'
    assert in_process == ['call:weather', 'result:sunny', 'text:It is ', 'text:sunny ', 'text:in Oslo.']
    assert durable == in_process


async def test_what_a_rewriting_process_event_stream_yields_is_what_the_durable_handler_gets(
    client: Client, task_queue: str
) -> None:
    async def results_only(
        ctx: RunContext[None], stream: AsyncIterable[AgentStreamEvent]
    ) -> AsyncIterator[AgentStreamEvent]:
        async for event in stream:
            if isinstance(event, FunctionToolResultEvent):
                yield event

    def collecting(seen: list[str]) -> Any:
        async def handler(ctx: RunContext[None], events: AsyncIterable[AgentStreamEvent]) -> None:
            seen.extend([describe(event) or type(event).__name__ async for event in events])

        return handler

    in_process: list[str] = []
    await weather_agent(capabilities=[ProcessEventStream(results_only)], handler=collecting(in_process)).run('Hi')
    durable: list[str] = []
    await run_durably(
        client, task_queue, weather_agent(capabilities=[ProcessEventStream(results_only)], handler=collecting(durable))
    )
    assert in_process == ['result:sunny']
    assert durable == in_process
