"""An agent's event stream handler in a durable run: called in the activities, with the model's streamed deltas."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client

from agent import Agent, RunContext
from agent.messages import (
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    ModelMessage,
    ModelRequest,
    PartDeltaEvent,
    PartStartEvent,
    TextPartDelta,
    ToolReturnPart,
)
from agent.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow, DurableAgent

pytestmark = pytest.mark.asyncio(loop_scope='session')


async def forecast_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    """Streams a `weather` call in pieces, then (once it has the result) a sentence in three pieces."""
    results = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    if not results:
        yield {0: DeltaToolCall(name='weather', json_args='{"city": ', tool_call_id='w-1')}
        yield {0: DeltaToolCall(json_args='"Oslo"}')}
        return
    for piece in ('It is ', f'{results[0].content} ', 'in Oslo.'):
        yield piece


def describe(event: Any) -> str:
    if isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
        return f'text:{event.delta.content_delta}'
    if isinstance(event, PartStartEvent):
        return f'start:{event.part.part_kind}'
    if isinstance(event, FunctionToolCallEvent):
        return f'call:{event.part.tool_name}'
    if isinstance(event, FunctionToolResultEvent):
        return f'result:{event.part.content}'
    return type(event).__name__


def weather_agent(log: Path) -> Agent[None, str]:
    async def handler(ctx: RunContext[None], events: AsyncIterator[Any]) -> None:
        # Real I/O, as a handler pushing to a UI would do: it could not run inside the workflow.
        with log.open('a') as out:
            async for event in events:
                out.write(json.dumps(describe(event)) + '\n')

    agent = Agent(FunctionModel(stream_function=forecast_stream), name='weather_streamer', event_stream_handler=handler)

    @agent.tool_plain
    def weather(city: str) -> str:
        """Today's weather."""
        return 'sunny' if city == 'Oslo' else 'rainy'

    return agent


def logged(log: Path) -> list[str]:
    return [json.loads(line) for line in log.read_text().splitlines()]


async def test_the_handler_gets_streamed_deltas_and_tool_events_from_the_activities(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    in_process_log, durable_log = tmp_path / 'in_process.log', tmp_path / 'durable.log'
    local = await weather_agent(in_process_log).run('Weather in Oslo?')
    async with build_worker(client, {'weather_streamer': weather_agent(durable_log)}, task_queue=task_queue):
        result: AgentRunOutput = await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='weather_streamer', prompt='Weather in Oslo?'),
            id=f'stream-{uuid.uuid4()}',
            task_queue=task_queue,
        )
    assert result.output == local.output == 'It is sunny in Oslo.'
    durable = logged(durable_log)
    # The text arrived piece by piece, as the provider streamed it, and the tool's call and result around it.
    assert [e for e in durable if e.startswith('text:')] == ['text:sunny ', 'text:in Oslo.']
    assert durable.index('call:weather') < durable.index('result:sunny') < durable.index('start:text')
    # Everything the durable handler saw, the in-process handler saw in the same order.
    in_process = logged(in_process_log)
    assert [e for e in in_process if e in durable] == durable


async def test_a_durable_agent_can_give_its_activities_a_handler_of_their_own(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    seen: list[str] = []

    async def collect(ctx: RunContext[None], events: AsyncIterator[Any]) -> None:
        seen.extend([describe(event) async for event in events])

    agent = weather_agent(tmp_path / 'unused.log')
    durable = DurableAgent(agent, event_stream_handler=collect)
    async with build_worker(client, {'weather_streamer': durable}, task_queue=task_queue):
        await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='weather_streamer', prompt='Weather in Oslo?'),
            id=f'stream-{uuid.uuid4()}',
            task_queue=task_queue,
        )
    assert 'call:weather' in seen
    assert 'text:in Oslo.' in seen
    assert not (tmp_path / 'unused.log').exists()


async def test_a_model_that_cannot_stream_still_shows_its_parts_whole(client: Client, task_queue: str) -> None:
    from agent.messages import ModelResponse, PartEndEvent, TextPart, ToolCallPart

    def forecast(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[TextPart('Looking.'), ToolCallPart('weather', {'city': 'Oslo'}, 'w-1')])
        return ModelResponse(parts=[TextPart('It is sunny in Oslo.')])

    seen: list[str] = []

    async def collect(ctx: RunContext[None], events: AsyncIterator[Any]) -> None:
        async for event in events:
            seen.append(f'end:{event.part.part_kind}' if isinstance(event, PartEndEvent) else describe(event))

    agent = Agent(FunctionModel(forecast), name='weather_whole', event_stream_handler=collect)

    @agent.tool_plain
    def weather(city: str) -> str:
        """Today's weather."""
        return 'sunny'

    async with build_worker(client, {'weather_whole': agent}, task_queue=task_queue):
        await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='weather_whole', prompt='Weather in Oslo?'),
            id=f'stream-{uuid.uuid4()}',
            task_queue=task_queue,
        )
    assert seen == [
        'start:text',
        'end:text',
        'start:tool-call',
        'end:tool-call',
        'call:weather',
        'result:sunny',
        'start:text',
        'end:text',
    ]
