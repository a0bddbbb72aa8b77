from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from agent._tool_def import ToolDefinition
from agent.exceptions import UserError
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ToolCallPart,
    ToolCallPartDelta,
)
from agent.models import ModelRequestParameters
from agent.models.function import (
    AgentInfo,
    DeltaThinkingCalls,
    DeltaThinkingPart,
    DeltaToolCall,
    DeltaToolCalls,
    FunctionModel,
)
from agent.usage import RequestUsage

PROMPT: list[ModelMessage] = [ModelRequest.user_text_prompt('What is the weather?', instructions='Be terse.')]
WEATHER = ToolDefinition(name='weather', parameters_json_schema={'type': 'object', 'properties': {}})
FINAL = ToolDefinition(name='final_result', kind='output')


async def test_sync_function_sees_the_messages_and_what_the_agent_offers():
    seen: list[tuple[list[ModelMessage], AgentInfo]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append((messages, info))
        return ModelResponse(parts=[TextPart('sunny and warm')])

    model = FunctionModel(respond)
    params = ModelRequestParameters(function_tools=[WEATHER], output_tools=[FINAL], allow_text_output=False)

    response = await model.request(PROMPT, {'temperature': 0.0}, params)

    [(messages, info)] = seen
    assert messages is PROMPT
    assert ([t.name for t in info.function_tools], [t.name for t in info.output_tools]) == (
        ['weather'],
        ['final_result'],
    )
    assert (info.allow_text_output, info.instructions, info.model_settings) == (
        False,
        'Be terse.',
        {'temperature': 0.0},
    )
    assert response.model_name == 'function:respond:'
    # 50 overhead + 4 prompt words (instructions are not counted); 3 words out.
    assert (response.usage.input_tokens, response.usage.output_tokens) == (54, 3)


async def test_async_function_is_awaited_its_usage_kept_and_its_response_named_after_the_model():
    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart('hi')], model_name='custom', usage=RequestUsage(input_tokens=100))

    response = await FunctionModel(respond).request(PROMPT, None, ModelRequestParameters())

    assert (response.text, response.model_name, response.usage.input_tokens) == ('hi', 'function:respond:', 100)


def test_a_function_model_needs_at_least_one_function():
    with pytest.raises(TypeError, match='needs a `function`, a `stream_function`, or both'):
        FunctionModel()


async def _stream_text(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    for chunk in ('The ', '', 'answer'):
        yield chunk


async def test_request_without_a_function_suggests_streaming():
    model = FunctionModel(stream_function=_stream_text)

    assert model.model_name == 'function::_stream_text'
    with pytest.raises(UserError, match='run_stream'):
        await model.request(PROMPT, None, ModelRequestParameters())


async def test_streaming_without_a_stream_function_raises_on_entering_the_stream():
    model = FunctionModel(lambda messages, info: ModelResponse(parts=[]))

    with pytest.raises(NotImplementedError, match='only a `function`'):
        async with model.request_stream(PROMPT, None, ModelRequestParameters()):
            pass


async def test_streamed_strings_append_to_one_text_part():
    model = FunctionModel(stream_function=_stream_text)

    async with model.request_stream(PROMPT, None, ModelRequestParameters()) as stream:
        events = [event async for event in stream]

    assert events == [
        PartStartEvent(0, TextPart('The ')),
        PartDeltaEvent(0, TextPartDelta('answer')),
        PartEndEvent(0, TextPart('The answer')),
    ]
    response = stream.get()
    assert (response.text, response.model_name, response.provider_name) == ('The answer', model.model_name, None)
    # A streamed estimate counts only the fixed overhead in and the streamed words out.
    assert (response.usage.input_tokens, response.usage.output_tokens) == (50, 2)


async def test_streamed_tool_call_fragments_build_one_call_per_key():
    async def stream_calls(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[DeltaToolCalls]:
        yield {0: DeltaToolCall(tool_call_id='call_a')}
        yield {0: DeltaToolCall(name='weather', json_args='{"city": ')}
        yield {0: DeltaToolCall(json_args='"Paris"}'), 1: DeltaToolCall('time', '{}', 'call_b')}

    async with FunctionModel(stream_function=stream_calls).request_stream(
        PROMPT, None, ModelRequestParameters(function_tools=[WEATHER])
    ) as stream:
        events = [event async for event in stream]

    assert events == [
        PartStartEvent(0, ToolCallPart('weather', '{"city": ', 'call_a')),
        PartDeltaEvent(0, ToolCallPartDelta(None, '"Paris"}', 'call_a')),
        PartEndEvent(0, ToolCallPart('weather', '{"city": "Paris"}', 'call_a'), next_part_kind='tool-call'),
        PartStartEvent(1, ToolCallPart('time', '{}', 'call_b'), previous_part_kind='tool-call'),
        PartEndEvent(1, ToolCallPart('time', '{}', 'call_b')),
    ]
    assert stream.get().tool_calls[0].args_as_dict() == {'city': 'Paris'}


async def test_streamed_thinking_precedes_text_and_keeps_its_signature():
    async def think_then_answer(
        messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaThinkingCalls]:
        yield {0: DeltaThinkingPart(content='Checking ')}
        yield {0: DeltaThinkingPart(content='the sky.', signature='sig-1')}
        yield 'Sunny.'

    async with FunctionModel(stream_function=think_then_answer).request_stream(
        PROMPT, None, ModelRequestParameters()
    ) as stream:
        events = [event async for event in stream]

    thinking = ThinkingPart('Checking the sky.', signature='sig-1')
    assert events[2] == PartEndEvent(0, thinking, next_part_kind='text')
    assert events[3] == PartStartEvent(1, TextPart('Sunny.'), previous_part_kind='thinking')
    assert stream.get().parts == [thinking, TextPart('Sunny.')]


async def test_iterating_a_stream_again_continues_where_it_stopped():
    model = FunctionModel(stream_function=_stream_text)

    async with model.request_stream(PROMPT, None, ModelRequestParameters()) as stream:
        async for event in stream:
            assert isinstance(event, PartStartEvent)
            break
        rest = [event async for event in stream]

    assert [type(e).__name__ for e in rest] == ['PartDeltaEvent', 'PartEndEvent']


def test_model_name_names_both_functions_when_both_are_given():
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[])

    model = FunctionModel(respond, stream_function=_stream_text)

    assert (model.model_name, model.system, model.label) == (
        'function:respond:_stream_text',
        'function',
        'function:function:respond:_stream_text',
    )
    assert FunctionModel(respond, model_name='scripted').model_name == 'scripted'


def test_agent_info_is_frozen():
    info = AgentInfo(
        function_tools=[],
        allow_text_output=True,
        output_tools=[],
        model_settings=None,
        model_request_parameters=ModelRequestParameters(),
        instructions=None,
    )

    with pytest.raises(AttributeError):
        info.instructions = 'changed'  # pyright: ignore[reportAttributeAccessIssue]


async def test_a_stream_function_can_yield_whole_native_tool_calls_and_results():
    from agent import Agent
    from agent.messages import ModelResponse, NativeToolCallPart, NativeToolReturnPart
    from agent.models.function import BuiltinToolCallsReturns

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | BuiltinToolCallsReturns]:
        yield {0: NativeToolCallPart('web_search', {'query': 'x'}, 'ws1', provider_name='function')}
        yield {1: NativeToolReturnPart('web_search', {'hits': 1}, 'ws1', provider_name='function')}
        yield 'Found one.'

    async with Agent(FunctionModel(stream_function=stream)).run_stream('Search') as run:
        assert await run.get_output() == 'Found one.'
    response = run.all_messages()[-1]
    assert isinstance(response, ModelResponse)
    assert [type(part).__name__ for part in response.parts] == [
        'NativeToolCallPart',
        'NativeToolReturnPart',
        'TextPart',
    ]
