"""The objects streaming hands out: `run_stream`'s result while it streams, `node.stream(ctx)`'s `AgentStream`,
`run_stream_events`' stream, and the event stream handler's pace."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator

import pytest

from agent import Agent, ModelRequestNode, ModelResponse, RunContext, TextPart
from agent.messages import AgentStreamEvent, ModelMessage
from agent.models import ModelRequestParameters
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel
from agent.models.wrapper import CompletedStreamedResponse
from agent.result import AgentStream
from agent.usage import RunUsage

pytestmark = pytest.mark.anyio


async def test_run_stream_result_shows_run_id_metadata_and_the_growing_response_before_it_ends():
    agent = Agent(TestModel(custom_output_text='one two three'), metadata={'team': 'ops'})

    async with agent.run_stream('Count') as result:
        assert (result.run_id, result.metadata) == (result.all_messages()[0].run_id, {'team': 'ops'})
        states = [response.state async for response in result.stream_response(debounce_by=None)]
        assert result.response.parts == [TextPart('one two three')]

    assert states[:-1] == ['incomplete'] * (len(states) - 1)
    assert states[-1] == 'complete'
    assert result.usage == RunUsage(requests=1, input_tokens=51, output_tokens=3)
    # The method form Pydantic AI code still uses.
    assert result.usage() == result.usage  # pyright: ignore[reportCallIssue]


async def test_cancelling_a_run_stream_keeps_the_response_so_far_as_interrupted():
    async def endless(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        while True:
            yield 'more '

    agent = Agent(FunctionModel(stream_function=endless))

    async with agent.run_stream('Go') as result:
        async for _ in result.stream_text(delta=True, debounce_by=None):
            break
        await result.cancel()

    assert result.cancelled
    assert result.is_complete
    last = result.all_messages()[-1]
    assert isinstance(last, ModelResponse)
    assert last.state == 'interrupted'


async def test_leaving_a_run_stream_early_runs_the_stream_functions_cleanup():
    closed: list[bool] = []

    async def words(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        try:
            for word in ['a ', 'b ', 'c ', 'd']:
                yield word
        finally:
            closed.append(True)

    async with Agent(FunctionModel(stream_function=words)).run_stream('Go') as result:
        async for _ in result.stream_text(delta=True, debounce_by=None):
            break

    assert closed == [True]


async def test_run_stream_gives_its_event_stream_handler_the_events_up_to_the_final_result():
    seen: list[str] = []

    async def handler(ctx: RunContext[None], events: AsyncIterable[AgentStreamEvent]) -> None:
        async for event in events:
            seen.append(event.event_kind)

    agent = Agent(TestModel(custom_output_text='hi there'))
    async with agent.run_stream('Hi', event_stream_handler=handler) as result:
        # What follows the final result is the result's to stream, not the handler's.
        assert [t async for t in result.stream_text(delta=True, debounce_by=None)] == ['hi ', 'there']

    assert seen == ['part_start', 'final_result']


async def test_a_handler_that_is_cancelled_stops_a_run_whose_model_never_stops_streaming():
    pulled = 0

    async def endless(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        nonlocal pulled
        while True:
            pulled += 1
            yield 'x'

    async def handler(ctx: RunContext[None], events: AsyncIterable[AgentStreamEvent]) -> None:
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(Agent(FunctionModel(stream_function=endless)).run('Go', event_stream_handler=handler), 5)
    # The run waits for the handler to take each event: it stopped at the first.
    assert pulled == 1


async def test_node_stream_of_a_model_request_gives_an_agent_stream_with_text_and_output():
    agent = Agent(TestModel(custom_output_text='The cat sat.'))
    texts: list[str] = []

    async with agent.iter('Hi') as run:
        async for node in run:
            if isinstance(node, ModelRequestNode):
                async with node.stream(run.ctx) as stream:
                    assert isinstance(stream, AgentStream)
                    texts += [text async for text in stream.stream_text(debounce_by=None)]
                    assert await stream.get_output() == 'The cat sat.'
                    assert stream.response.model_name == 'test'

    assert texts == ['The ', 'The cat ', 'The cat sat.']


async def test_run_stream_events_reads_with_anext_and_closes_with_aclose():
    stream = Agent(TestModel(custom_output_text='hello')).run_stream_events('Hi')

    first = await anext(stream)
    await stream.aclose()

    assert first.event_kind == 'part_start'
    with pytest.raises(StopAsyncIteration):
        await anext(stream)


async def test_stream_text_gathers_pieces_arriving_together_by_default():
    async with Agent(TestModel(custom_output_text='a b c d')).run_stream('Hi') as result:
        assert [text async for text in result.stream_text()] == ['a b c d']


async def test_a_completed_streamed_response_has_no_events_and_cancels_quietly():
    response = ModelResponse(parts=[TextPart('done')], model_name='m')
    stream = CompletedStreamedResponse(ModelRequestParameters(), response)

    await stream.cancel()

    assert [event async for event in stream] == []
    assert stream.cancelled
    assert stream.get() is response


async def test_the_last_event_of_run_stream_events_equals_a_result_event_built_from_the_output_alone():
    from agent import AgentRunResult, AgentRunResultEvent

    agent = Agent(TestModel(custom_output_text='done'))

    async with agent.run_stream_events('Go') as stream:
        events = [event async for event in stream]

    # Results compare by output: the run state behind them (messages, ids) is not part of equality.
    assert events[-1] == AgentRunResultEvent(AgentRunResult(output='done'))
    assert events[-1] != AgentRunResultEvent(AgentRunResult(output='other'))


async def test_the_interrupted_response_of_a_cancelled_run_stream_carries_the_runs_ids():
    agent = Agent(TestModel(custom_output_text='a long answer'))

    async with agent.run_stream('Go') as result:
        async for _ in result.stream_text(delta=True, debounce_by=None):
            break
        await result.cancel()

    last = result.all_messages()[-1]
    assert isinstance(last, ModelResponse)
    assert (last.state, last.run_id, last.conversation_id) == ('interrupted', result.run_id, result.conversation_id)


async def test_a_node_stream_left_after_its_first_event_shows_its_response_still_incomplete():
    agent = Agent(TestModel(custom_output_text='one two three'))

    async with agent.iter('Go') as run:
        async for node in run:
            if isinstance(node, ModelRequestNode):
                async with node.stream(run.ctx) as stream:
                    assert isinstance(stream, AgentStream)
                    async for _ in stream:
                        break
                    # The node waits for its reader: the model has not streamed past the first event.
                    assert stream.response.state == 'incomplete'
                    assert stream.response.parts == [TextPart('')]


async def test_an_event_stream_built_around_a_generator_closes_it_when_entered_and_left_early():
    from agent import AgentEventStream, PartStartEvent

    closed: list[bool] = []

    async def events() -> AsyncIterator[PartStartEvent]:
        try:
            yield PartStartEvent(index=0, part=TextPart('hi'))
            yield PartStartEvent(index=1, part=TextPart('never read'))
        finally:
            closed.append(True)

    async with AgentEventStream[str](events()) as stream:
        async for event in stream:
            assert event == PartStartEvent(index=0, part=TextPart('hi'))
            break

    assert closed == [True]


async def test_a_finished_run_streams_its_text_once_more_and_hands_out_copies_of_its_output():
    agent = Agent(TestModel(custom_output_args={'city': 'Oslo'}), output_type=dict[str, str])
    text_agent = Agent(TestModel(custom_output_text='all done'))

    async with text_agent.run_stream('Go') as result:
        assert [t async for t in result.stream_text(debounce_by=None)][-1] == 'all done'
        # Read again after the run has finished: its text, once.
        assert [t async for t in result.stream_text(debounce_by=None)] == ['all done']

    async with agent.run_stream('Go') as structured:
        first = await structured.get_output()
        first['city'] = 'changed'
        assert await structured.get_output() == {'city': 'Oslo'}
        assert [o async for o in structured.stream_output()] == [{'city': 'Oslo'}]


async def test_a_node_streams_response_shows_a_snapshot_for_every_event_of_the_response():
    agent = Agent(TestModel(custom_output_text='one two'))
    texts: list[tuple[str, str]] = []

    async with agent.iter('Go') as run:
        async for node in run:
            if isinstance(node, ModelRequestNode):
                async with node.stream(run.ctx) as stream:
                    assert isinstance(stream, AgentStream)
                    async for response in stream.stream_response(debounce_by=None):
                        part = response.parts[0]
                        assert isinstance(part, TextPart)
                        texts.append((part.content, response.state))

    # The part's start and the final result event show the empty text; each delta, then the part's end, follow.
    assert texts == [
        ('', 'incomplete'),
        ('', 'incomplete'),
        ('one ', 'incomplete'),
        ('one two', 'incomplete'),
        ('one two', 'incomplete'),
        ('one two', 'complete'),
    ]
