"""Streaming the nodes of a run driven with `agent.iter()`: `async with node.stream(agent_run.ctx) as events:`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from agent import Agent
from agent.exceptions import UserError
from agent.messages import (
    FinalResultEvent,
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    ModelMessage,
    ModelRequest,
    PartDeltaEvent,
    PartStartEvent,
    TextPartDelta,
)
from agent.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel


def _model() -> tuple[FunctionModel, list[int]]:
    requests: list[int] = []

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        requests.append(len(messages))
        if len(messages) == 1:
            yield {0: DeltaToolCall(name='weather', json_args='{"city": "Paris"}', tool_call_id='w1')}
        else:
            yield 'It is '
            yield 'sunny.'

    return FunctionModel(stream_function=stream), requests


async def test_streaming_each_node_of_an_iterated_run_yields_its_events_and_runs_it_once():
    model, requests = _model()
    agent = Agent(model)

    @agent.tool_plain
    def weather(city: str) -> str:
        return f'sunny in {city}'

    seen: list[Any] = []
    async with agent.iter('Weather in Paris?') as run:
        async for node in run:
            if Agent.is_model_request_node(node) or Agent.is_call_tools_node(node):
                async with node.stream(run.ctx) as events:
                    seen.extend([event async for event in events])

    assert run.result is not None
    assert run.result.output == 'It is sunny.'
    # Two model requests: streaming a node ran it, and the loop did not run it again.
    assert requests == [1, 3]
    kinds = [type(event) for event in seen]
    assert FunctionToolCallEvent in kinds
    assert FunctionToolResultEvent in kinds
    assert FinalResultEvent in kinds
    deltas = [
        e.delta.content_delta for e in seen if isinstance(e, PartDeltaEvent) and isinstance(e.delta, TextPartDelta)
    ]
    assert ''.join(deltas) == 'sunny.'
    assert any(isinstance(e, PartStartEvent) for e in seen)


async def test_a_node_stream_left_unread_still_runs_the_node_to_its_end():
    model, requests = _model()
    agent = Agent(model)

    @agent.tool_plain
    def weather(city: str) -> str:
        return f'sunny in {city}'

    async with agent.iter('Weather in Paris?') as run:
        async for node in run:
            if Agent.is_model_request_node(node):
                async with node.stream(run.ctx):
                    pass

    assert run.result is not None
    assert run.result.output == 'It is sunny.'
    assert requests == [1, 3]


async def test_a_node_not_handed_out_by_a_run_cannot_be_streamed():
    model, _ = _model()
    agent = Agent(model)
    async with agent.iter('Hi') as run:
        from agent import ModelRequestNode

        with pytest.raises(UserError, match=r'agent\.iter'):
            async with ModelRequestNode[None, str](ModelRequest(parts=[])).stream(run.ctx):
                pass
