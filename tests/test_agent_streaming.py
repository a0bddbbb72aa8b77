"""Streaming runs: `run_stream`, `run_stream_events`, event stream handlers, and driving a run with `iter()`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from typing_extensions import TypedDict

from agent import Agent, AgentRunResultEvent, CallToolsNode, ModelRequestNode, RunContext, UserPromptNode
from agent.exceptions import UserError
from agent.graph import End
from agent.messages import (
    FinalResultEvent,
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    OutputToolCallEvent,
    OutputToolResultEvent,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ToolCallPart,
    ToolReturnPart,
)
from agent.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from agent.models.test import TestModel

Fragment = str | DeltaToolCalls


def streamed(*responses: list[Fragment]) -> FunctionModel:
    """A model that streams each scripted response, fragment by fragment, one response per request."""
    remaining = list(responses)

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Fragment]:
        assert remaining, 'the model was asked more often than the test scripted'
        for fragment in remaining.pop(0):
            yield fragment

    return FunctionModel(stream_function=stream)


def tool_call(name: str, *json_chunks: str, call_id: str = 'c1') -> list[Fragment]:
    first: Fragment = {
        0: DeltaToolCall(name=name, json_args=json_chunks[0] if json_chunks else None, tool_call_id=call_id)
    }
    return [first, *({0: DeltaToolCall(json_args=chunk)} for chunk in json_chunks[1:])]


class CityInfo(TypedDict, total=False):
    name: str
    population: int


# ----- run_stream -----


async def test_stream_text_delta_yields_each_chunk():
    agent = Agent(streamed(['Hello', ' world', '!']))

    async with agent.run_stream('Greet') as result:
        chunks = [chunk async for chunk in result.stream_text(delta=True, debounce_by=None)]

    assert chunks == ['Hello', ' world', '!']
    assert result.is_complete


async def test_stream_text_yields_the_growing_text():
    agent = Agent(streamed(['Hello', ' world', '!']))

    async with agent.run_stream('Greet') as result:
        texts = [t async for t in result.stream_text(debounce_by=None)]

    assert texts == ['Hello', 'Hello world', 'Hello world!']


async def test_get_output_waits_for_the_whole_streamed_text():
    agent = Agent(streamed(['Hello', ' world', '!']))

    async with agent.run_stream('Greet') as result:
        assert not result.is_complete
        output = await result.get_output()

    assert output == 'Hello world!'
    assert result.usage.requests == 1
    messages = result.all_messages()
    assert isinstance(messages[-1], ModelResponse)
    assert messages[-1].parts == [TextPart('Hello world!')]
    assert result.new_messages() == messages


async def test_streamed_result_shows_the_messages_before_the_final_response_while_it_streams():
    agent = Agent(streamed(tool_call('lookup', '{}'), ['It is ', 'sunny.']))

    @agent.tool_plain
    def lookup() -> str:
        return 'sun'

    async with agent.run_stream('Weather?') as result:
        before = result.all_messages()
        assert not result.is_complete
        assert result.run_id == before[0].run_id
        await result.get_output()

    # The request, the tool call and its result are there while the final response streams (which the run, a step
    # ahead of the reader, may have recorded already).
    assert [type(m).__name__ for m in before[:3]] == ['ModelRequest', 'ModelResponse', 'ModelRequest']
    assert result.all_messages()[:3] == before[:3]
    assert len(result.all_messages()) == 4


async def test_stream_text_streams_only_the_final_response_after_tool_calls():
    agent = Agent(streamed(tool_call('lookup', '{}'), ['It is ', 'sunny.']))

    @agent.tool_plain
    def lookup() -> str:
        return 'sun'

    async with agent.run_stream('Weather?') as result:
        chunks = [c async for c in result.stream_text(delta=True, debounce_by=None)]

    assert chunks == ['It is ', 'sunny.']
    returns = [p for m in result.all_messages() if isinstance(m, ModelRequest) for p in m.parts]
    assert any(isinstance(p, ToolReturnPart) and p.content == 'sun' for p in returns)


async def test_stream_text_ignores_text_of_a_response_that_goes_on_to_call_tools():
    agent = Agent(streamed(['Let me check. ', *tool_call('lookup', '{}')], ['It is ', 'sunny.']))

    @agent.tool_plain
    def lookup() -> str:
        return 'sun'

    async with agent.run_stream('Weather?') as result:
        texts = [t async for t in result.stream_text(debounce_by=None)]
        output = await result.get_output()

    assert output == 'It is sunny.'
    assert texts[-1] == output


async def test_stream_text_delta_yields_each_final_chunk_once_after_a_text_and_tools_response():
    agent = Agent(streamed(['Let me check. ', *tool_call('lookup', '{}')], ['It is ', 'sunny.']))

    @agent.tool_plain
    def lookup() -> str:
        return 'sun'

    async with agent.run_stream('Weather?') as result:
        chunks = [c async for c in result.stream_text(delta=True, debounce_by=None)]

    assert chunks.count('It is ') == 1
    assert chunks[-2:] == ['It is ', 'sunny.']


async def test_stream_text_refuses_structured_output():
    agent = Agent(streamed(tool_call('final_result', '{"name": "Oslo"}')), output_type=CityInfo)

    async with agent.run_stream('City') as result:
        with pytest.raises(UserError, match=r'stream_text\(\) can only be used with text responses'):
            async for _ in result.stream_text():
                pass
        assert await result.get_output() == {'name': 'Oslo'}


async def test_stream_output_yields_partial_structured_output_then_the_final():
    agent = Agent(
        streamed(tool_call('final_result', '{"name": "Par', 'is", "popul', 'ation": 21', '00000}')),
        output_type=CityInfo,
    )

    async with agent.run_stream('City') as result:
        outputs = [o async for o in result.stream_output(debounce_by=None)]

    assert outputs[0] == {'name': 'Par'}
    assert {'name': 'Paris'} in outputs
    assert outputs[-1] == {'name': 'Paris', 'population': 2100000}
    assert result.result is not None
    assert result.result.output == {'name': 'Paris', 'population': 2100000}
    sizes = [len(o) for o in outputs]
    assert sizes == sorted(sizes)


async def test_stream_output_of_text_yields_the_growing_text_and_the_final_output():
    agent = Agent(streamed(['a', 'b']))

    async with agent.run_stream('Go') as result:
        outputs = [o async for o in result.stream_output(debounce_by=None)]

    assert outputs == ['a', 'ab', 'ab']


async def test_run_stream_applies_output_validators_to_the_final_output():
    agent = Agent(streamed(['quiet']))

    @agent.output_validator
    def louder(output: str) -> str:
        return output.upper()

    async with agent.run_stream('Go') as result:
        assert await result.get_output() == 'QUIET'


async def test_stream_output_runs_output_validators_on_partial_output():
    seen: list[tuple[str, bool]] = []
    agent = Agent(streamed(['quiet', ' please']))

    @agent.output_validator
    def louder(ctx: RunContext[None], output: str) -> str:
        seen.append((output, ctx.partial_output))
        return output.upper()

    async with agent.run_stream('Go') as result:
        outputs = [o async for o in result.stream_output(debounce_by=None)]

    assert outputs[-1] == 'QUIET PLEASE'
    assert all(o == o.upper() for o in outputs)
    assert ('quiet', True) in seen
    assert ('quiet please', False) in seen


# ----- run_stream_events and event_stream_handler -----


async def test_run_stream_events_yields_part_tool_and_final_events_then_the_run_result():
    agent = Agent(streamed(tool_call('lookup', '{"city": ', '"Oslo"}'), ['The ', 'weather ', 'is fine.']))

    @agent.tool_plain
    def lookup(city: str) -> str:
        return f'{city}: fine'

    async with agent.run_stream_events('Weather?') as stream:
        events = [event async for event in stream]

    assert [type(e) for e in events] == [
        PartStartEvent,
        PartDeltaEvent,
        PartEndEvent,
        FunctionToolCallEvent,
        FunctionToolResultEvent,
        PartStartEvent,
        FinalResultEvent,
        PartDeltaEvent,
        PartDeltaEvent,
        PartEndEvent,
        AgentRunResultEvent,
    ]
    call_event, result_event = events[3], events[4]
    assert isinstance(call_event, FunctionToolCallEvent)
    assert call_event.part.args == '{"city": "Oslo"}'
    assert isinstance(result_event, FunctionToolResultEvent)
    assert result_event.part.content == 'Oslo: fine'
    assert result_event.tool_call_id == call_event.tool_call_id == 'c1'
    final = events[6]
    assert isinstance(final, FinalResultEvent)
    assert (final.tool_name, final.tool_call_id) == (None, None)
    delta = events[7]
    assert isinstance(delta, PartDeltaEvent)
    assert delta.delta == TextPartDelta('weather ')
    last = events[-1]
    assert isinstance(last, AgentRunResultEvent)
    assert last.result.output == 'The weather is fine.'


async def test_run_stream_events_reports_output_tool_handling():
    agent = Agent(streamed(tool_call('final_result', '{"name": "Oslo"}', call_id='out-1')), output_type=CityInfo)

    async with agent.run_stream_events('City') as stream:
        events = [event async for event in stream]

    kinds = [type(e) for e in events]
    assert kinds == [
        PartStartEvent,
        FinalResultEvent,
        PartEndEvent,
        OutputToolCallEvent,
        OutputToolResultEvent,
        AgentRunResultEvent,
    ]
    final = events[1]
    assert isinstance(final, FinalResultEvent)
    assert (final.tool_name, final.tool_call_id) == ('final_result', 'out-1')
    last = events[-1]
    assert isinstance(last, AgentRunResultEvent)
    assert last.result.output == {'name': 'Oslo'}


async def test_run_stream_events_with_test_model_ends_with_the_run_result():
    agent = Agent(TestModel())

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    async with agent.run_stream_events('go') as stream:
        events = [event async for event in stream]

    assert isinstance(events[-1], AgentRunResultEvent)
    assert sum(isinstance(e, AgentRunResultEvent) for e in events) == 1
    assert events[-1].result.output == '{"ping":"pong"}'
    assert [type(e) for e in events if isinstance(e, FunctionToolCallEvent | FunctionToolResultEvent)] == [
        FunctionToolCallEvent,
        FunctionToolResultEvent,
    ]


async def test_run_stream_events_works_with_a_model_that_only_answers_whole_responses():
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart('whole answer')])

    agent = Agent(FunctionModel(respond))

    async with agent.run_stream_events('go') as stream:
        events = [event async for event in stream]

    assert [type(e) for e in events] == [PartStartEvent, FinalResultEvent, PartEndEvent, AgentRunResultEvent]
    last = events[-1]
    assert isinstance(last, AgentRunResultEvent)
    assert last.result.output == 'whole answer'


async def test_run_stream_events_raises_the_runs_error_to_the_consumer():
    agent = Agent(streamed(tool_call('explode', '{}')))

    @agent.tool_plain
    def explode() -> str:
        raise ValueError('kaboom')

    async def consume() -> None:
        async with agent.run_stream_events('go') as stream:
            async for _ in stream:
                pass

    with pytest.raises(ValueError, match='kaboom'):
        await consume()


async def test_event_stream_handler_passed_to_run_receives_every_event():
    received: list[Any] = []
    contexts: list[RunContext[str]] = []

    async def handler(ctx: RunContext[str], events: AsyncIterator[Any]) -> None:
        contexts.append(ctx)
        async for event in events:
            received.append(event)

    agent = Agent(streamed(tool_call('ping', '{}'), ['pong received']), deps_type=str)

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    result = await agent.run('go', deps='d', event_stream_handler=handler)

    assert result.output == 'pong received'
    assert [type(e) for e in received] == [
        PartStartEvent,
        PartEndEvent,
        FunctionToolCallEvent,
        FunctionToolResultEvent,
        PartStartEvent,
        FinalResultEvent,
        PartEndEvent,
    ]
    assert [c.deps for c in contexts] == ['d']


async def test_event_stream_handler_given_to_the_agent_is_used_by_every_run():
    received: list[type] = []

    async def handler(ctx: RunContext[None], events: AsyncIterator[Any]) -> None:
        async for event in events:
            received.append(type(event))

    agent = Agent(streamed(['one'], ['two']), event_stream_handler=handler)

    await agent.run('a')
    await agent.run('b')

    assert received == [PartStartEvent, FinalResultEvent, PartEndEvent] * 2


# ----- iter() -----


async def test_iterating_a_run_yields_each_node_in_order():
    agent = Agent(TestModel())

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    nodes: list[Any] = []
    async with agent.iter('go') as agent_run:
        async for node in agent_run:
            nodes.append(node)

    assert [type(n) for n in nodes] == [
        UserPromptNode,
        ModelRequestNode,
        CallToolsNode,
        ModelRequestNode,
        CallToolsNode,
        End,
    ]
    assert agent_run.result is not None
    assert agent_run.result.output == '{"ping":"pong"}'
    first_request = nodes[1]
    assert isinstance(first_request, ModelRequestNode)
    assert first_request.request.parts[0].content == 'go'
    tool_results = nodes[3]
    assert isinstance(tool_results, ModelRequestNode)
    assert isinstance(tool_results.request.parts[0], ToolReturnPart)
    handled = nodes[2]
    assert isinstance(handled, CallToolsNode)
    assert isinstance(handled.model_response.parts[0], ToolCallPart)


async def test_driving_a_run_with_next_reaches_the_end():
    agent = Agent(TestModel(custom_output_text='done'))

    visited: list[type] = []
    async with agent.iter('go') as agent_run:
        node = agent_run.next_node
        while not isinstance(node, End):
            visited.append(type(node))
            node = await agent_run.next(node)
        assert agent_run.next_node is node

    assert visited == [UserPromptNode, ModelRequestNode, CallToolsNode]
    assert agent_run.result is not None
    assert agent_run.result.output == 'done'
    assert node.data.output == 'done'
    assert agent_run.usage().requests == 1
    assert len(agent_run.all_messages()) == 2


async def test_messages_grow_as_the_run_is_driven():
    agent = Agent(TestModel(custom_output_text='done'))

    async with agent.iter('go') as agent_run:
        node = agent_run.next_node
        counts = [len(agent_run.all_messages())]
        while not isinstance(node, End):
            node = await agent_run.next(node)
            counts.append(len(agent_run.all_messages()))

    assert counts == [0, 0, 2, 2]


async def test_an_error_in_the_model_propagates_out_of_run():
    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise RuntimeError('model exploded')

    agent = Agent(FunctionModel(broken))

    with pytest.raises(RuntimeError, match='model exploded'):
        await agent.run('go')


async def test_an_error_in_a_tool_propagates_out_of_run():
    agent = Agent(TestModel())

    @agent.tool_plain
    def explode() -> str:
        raise ValueError('tool exploded')

    with pytest.raises(ValueError, match='tool exploded'):
        await agent.run('go')


async def test_an_error_in_a_node_propagates_out_of_next():
    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise LookupError('no such thing')

    agent = Agent(FunctionModel(broken))

    async with agent.iter('go') as agent_run:
        first = agent_run.next_node
        assert isinstance(first, UserPromptNode)
        node = await agent_run.next(first)
        assert isinstance(node, ModelRequestNode)
        with pytest.raises(LookupError, match='no such thing'):
            await agent_run.next(node)


async def test_stream_output_debounce_skips_partial_outputs_that_arrive_together_but_keeps_the_final():
    agent = Agent(
        streamed(tool_call('final_result', '{"name": "Par', 'is", "popul', 'ation": 21', '00000}')),
        output_type=CityInfo,
    )

    async with agent.run_stream('City') as result:
        outputs = [o async for o in result.stream_output(debounce_by=60)]

    # The first piece opens a 60 s window that gathers every later piece: one partial output (the latest), then
    # the final output.
    assert outputs == [{'name': 'Paris', 'population': 2100000}, {'name': 'Paris', 'population': 2100000}]
