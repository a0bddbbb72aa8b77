"""`UIEventStream`: the order in which real agent runs drive the hooks and handlers of a protocol stream."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import BaseModel

from agent import Agent
from agent.messages import (
    BinaryContent,
    CompactionPart,
    FilePart,
    ModelMessage,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    PartEndEvent,
    PartStartEvent,
    TextPart,
)
from agent.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, FunctionModel
from agent.run import AgentRunResult
from agent.ui import SSE_CONTENT_TYPE, NativeEvent

from ._recording import RecordingAdapter, RecordingInput, RecordingStream

_HI = [{'kind': 'request', 'parts': [{'part_kind': 'user-prompt', 'content': 'hi'}]}]


def _adapter(agent: Agent[Any, Any]) -> RecordingAdapter:
    return RecordingAdapter(agent, RecordingInput(messages=_HI))


async def _record(agent: Agent[Any, Any], **kwargs: Any) -> list[str]:
    return [e async for e in _adapter(agent).run_stream(**kwargs)]


class City(BaseModel):
    name: str


async def _thinking_text_and_tool(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
    if len(messages) == 1:
        yield {0: DeltaThinkingPart('Let me ')}
        yield {0: DeltaThinkingPart('think')}
        yield {1: DeltaThinkingPart('more')}
        yield 'Checking'
        yield {2: DeltaToolCall('get_weather', '{"city":', 'call-1')}
        yield {2: DeltaToolCall(None, '"Paris"}')}
    else:
        yield 'Sunny'
        yield ' today'


def _weather_agent() -> Agent[None, str]:
    agent = Agent(FunctionModel(stream_function=_thinking_text_and_tool))

    @agent.tool_plain
    def get_weather(city: str) -> str:
        return f'sunny in {city}'

    return agent


async def test_a_run_with_thinking_text_and_a_tool_call_alternates_response_and_request_turns() -> None:
    events = await _record(_weather_agent())

    assert events == [
        'before_stream',
        'before_response',
        "thinking_start('Let me ', follows_thinking=False)",
        "thinking_delta('think')",
        "thinking_end('Let me think', followed_by_thinking=True)",
        "thinking_start('more', follows_thinking=True)",
        "thinking_end('more', followed_by_thinking=False)",
        "text_start('Checking', follows_text=False)",
        'final_result(None)',
        "text_end('Checking', followed_by_text=False)",
        'tool_call_start(get_weather)',
        'tool_call_delta',
        'tool_call_end(get_weather, {"city":"Paris"})',
        'after_response',
        'before_request',
        'function_tool_call(get_weather)',
        "function_tool_result(get_weather, 'sunny in Paris', success)",
        'after_request',
        'before_response',
        "text_start('Sunny', follows_text=False)",
        'final_result(None)',
        "text_delta(' today')",
        "text_end('Sunny today', followed_by_text=False)",
        'after_response',
        "run_result('Sunny today')",
        'after_stream',
    ]


async def test_consecutive_text_parts_are_flagged_as_following_and_followed_by_text() -> None:
    def two_texts(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart('Hello'), TextPart('World')])

    events = await _record(Agent(FunctionModel(two_texts)))

    assert events == [
        'before_stream',
        'before_response',
        "text_start('Hello', follows_text=False)",
        'final_result(None)',
        "text_end('Hello', followed_by_text=True)",
        "text_start('World', follows_text=True)",
        "text_end('World', followed_by_text=False)",
        'after_response',
        "run_result('HelloWorld')",
        'after_stream',
    ]


async def test_an_output_tool_call_is_handled_in_a_request_turn() -> None:
    async def answer(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        yield {0: DeltaToolCall(info.output_tools[0].name, '{"name": "Paris"}', 'out-1')}

    events = await _record(Agent(FunctionModel(stream_function=answer), output_type=City))

    assert events == [
        'before_stream',
        'before_response',
        'tool_call_start(final_result)',
        'final_result(final_result)',
        'tool_call_end(final_result, {"name": "Paris"})',
        'after_response',
        'before_request',
        'output_tool_call(final_result)',
        "output_tool_result(final_result, 'Final result processed.', success)",
        'after_request',
        "run_result(City(name='Paris'))",
        'after_stream',
    ]


async def test_native_tool_file_and_compaction_parts_go_to_their_handlers() -> None:
    call = NativeToolCallPart('web_search', {'q': 'x'}, tool_call_id='n1')
    ret = NativeToolReturnPart('web_search', 'results', tool_call_id='n1')
    file = FilePart(BinaryContent(b'img', media_type='image/png'))
    compaction = CompactionPart('summary')

    async def native_events() -> AsyncIterator[NativeEvent]:
        for index, part in enumerate([call, ret, file, compaction]):
            yield PartStartEvent(index, part)
            yield PartEndEvent(index, part)

    stream = RecordingStream(RecordingInput())
    events = [e async for e in stream.transform_stream(native_events())]

    assert events == [
        'before_stream',
        'before_response',
        'builtin_tool_call_start(web_search)',
        'builtin_tool_call_end(web_search)',
        'builtin_tool_return(web_search)',
        'file',
        'compaction',
        'after_response',
        'after_stream',
    ]


# ----- on_complete -----


async def test_an_async_generator_on_complete_adds_its_events_after_the_turn_closes_and_before_the_result() -> None:
    results: list[AgentRunResult[Any]] = []

    async def on_complete(result: AgentRunResult[Any]) -> AsyncIterator[str]:
        results.append(result)
        yield f'completed({result.output!r})'

    events = await _record(_weather_agent(), on_complete=on_complete)

    assert events[-4:] == ['after_response', "completed('Sunny today')", "run_result('Sunny today')", 'after_stream']
    assert [r.output for r in results] == ['Sunny today']


async def test_a_coroutine_on_complete_is_awaited_before_the_result_is_handled() -> None:
    calls: list[str] = []

    async def on_complete(result: AgentRunResult[Any]) -> None:
        calls.append(result.output)

    stream = _adapter(_weather_agent()).run_stream(on_complete=on_complete)
    async for event in stream:
        if event.startswith('run_result'):
            assert calls == ['Sunny today']
    assert calls == ['Sunny today']


async def test_a_sync_on_complete_runs_in_a_worker_thread() -> None:
    threads: list[int] = []

    def on_complete(result: AgentRunResult[Any]) -> None:
        threads.append(threading.get_ident())

    events = await _record(_weather_agent(), on_complete=on_complete)

    assert events[-2:] == ["run_result('Sunny today')", 'after_stream']
    assert len(threads) == 1
    assert threads[0] != threading.get_ident()


# ----- errors -----


async def test_an_error_in_a_tool_closes_the_pending_call_as_failed_and_reports_it_without_raising() -> None:
    async def call_explode(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        yield {0: DeltaToolCall('explode', '{}', 'call-x')}

    agent = Agent(FunctionModel(stream_function=call_explode))

    @agent.tool_plain
    def explode() -> str:
        raise RuntimeError('boom')

    events = await _record(agent)

    assert events == [
        'before_stream',
        'before_response',
        'tool_call_start(explode)',
        'tool_call_end(explode, {})',
        'after_response',
        'before_request',
        'function_tool_call(explode)',
        "function_tool_result(explode, 'Tool execution was interrupted by an error.', failed)",
        'on_error(RuntimeError: boom)',
        'after_request',
        'after_stream',
    ]


async def test_an_error_after_the_final_result_closes_the_output_tool_call() -> None:
    async def break_mid_answer(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        yield {0: DeltaToolCall(info.output_tools[0].name, '{"name": ', 'out-2')}
        raise RuntimeError('connection lost')

    events = await _record(Agent(FunctionModel(stream_function=break_mid_answer), output_type=City))

    assert events == [
        'before_stream',
        'before_response',
        'tool_call_start(final_result)',
        'final_result(final_result)',
        'after_response',
        'before_request',
        "output_tool_result(final_result, 'Tool execution was interrupted by an error.', failed)",
        'on_error(RuntimeError: connection lost)',
        'after_request',
        'after_stream',
    ]


async def test_an_error_with_no_pending_calls_only_reports_it() -> None:
    async def fail(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        yield 'Partial'
        raise ValueError('model down')

    events = await _record(Agent(FunctionModel(stream_function=fail)))

    assert events == [
        'before_stream',
        'before_response',
        "text_start('Partial', follows_text=False)",
        'final_result(None)',
        'on_error(ValueError: model down)',
        'after_response',
        'after_stream',
    ]


async def test_a_base_exception_propagates_after_the_stream_is_closed() -> None:
    class Stop(BaseException):
        pass

    async def native_events() -> AsyncIterator[NativeEvent]:
        yield PartStartEvent(0, TextPart('Hi'))
        raise Stop

    events: list[str] = []

    async def consume() -> None:
        async for event in RecordingStream(RecordingInput()).transform_stream(native_events()):
            events.append(event)

    with pytest.raises(Stop):
        await consume()

    assert events == [
        'before_stream',
        'before_response',
        "text_start('Hi', follows_text=False)",
        'after_response',
        'after_stream',
    ]


# ----- encoding -----


async def test_encode_stream_encodes_each_event_and_the_response_is_server_sent_events() -> None:
    stream = RecordingStream(RecordingInput())

    async def protocol_events() -> AsyncIterator[str]:
        yield 'a'
        yield 'b'

    assert [chunk async for chunk in stream.encode_stream(protocol_events())] == ['data: a\n\n', 'data: b\n\n']
    response = stream.streaming_response(protocol_events())
    assert response.media_type == SSE_CONTENT_TYPE == 'text/event-stream'
    assert stream.response_headers is None


def test_new_message_id_stores_and_returns_a_fresh_id() -> None:
    stream = RecordingStream(RecordingInput())
    first = stream.message_id

    second = stream.new_message_id()

    assert second == stream.message_id != first
