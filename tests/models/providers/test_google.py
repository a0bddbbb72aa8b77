"""`GoogleModel` against recorded Gemini API exchanges: exact request bodies, parts, usage, errors."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from activities._errors import to_application_error
from agent import Agent
from agent.builtin_tools import CodeExecutionTool
from agent.capabilities import Thinking
from agent.exceptions import ModelHTTPError
from agent.messages import (
    ModelRequest,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
)
from agent.models import ModelRequestParameters, OutputObjectDefinition
from agent.models.google import GoogleModel
from agent.providers.google import GoogleProvider
from agent.usage import RequestUsage

from ._mock import ScriptedProvider

SIGNATURE = 'CiQB0e2Kb3Yq8rQ1x9mF2JpZ5cT0nH6vLwE4kS7uA1dGhR2yXcMSbQHR7YoZ'


class CityInfo(BaseModel):
    """Facts about a city."""

    city: str
    country: str
    population: int


def gemini(server: ScriptedProvider, name: str = 'gemini-2.5-flash') -> GoogleModel:
    return GoogleModel(name, provider=GoogleProvider(api_key='gm-test', http_client=server.client()))


def weather_agent(model: GoogleModel, weather: dict[str, str] | None = None, **kwargs: Any) -> Agent[None, str]:
    weather = {'Paris': 'sunny, 22 °C'} if weather is None else weather
    agent = Agent(model, **kwargs)

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """Get the current weather in a city.

        Args:
            city: The city name.
        """
        return weather.get(city, f'sunny in {city}')

    return agent


async def test_plain_text_is_sent_with_a_system_instruction_and_read_back_with_thought_usage():
    server = ScriptedProvider.load('google/text')

    result = await Agent(gemini(server), instructions='Be concise.').run('What is the capital of France?')

    server.assert_all_sent_as_expected()
    [sent] = server.sent
    assert sent.url == 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent'
    assert sent.headers['x-goog-api-key'] == 'gm-test'
    assert result.output == 'The capital of France is Paris.'
    response = result.all_messages()[-1]
    assert isinstance(response, ModelResponse)
    assert response.parts == [TextPart('The capital of France is Paris.')]
    assert response.provider_name == 'google-gla'
    assert response.provider_response_id == 'Q7ZiaN3pJZWFz7IP0L2r2Qo'
    assert response.finish_reason == 'stop'
    assert response.usage == RequestUsage(input_tokens=12, output_tokens=33, cache_read_tokens=4, reasoning_tokens=25)


async def test_a_function_call_keeps_its_thought_signature_for_the_next_request():
    server = ScriptedProvider.load('google/tool_round_trip')

    result = await weather_agent(gemini(server), instructions='Be concise.').run('What is the weather in Paris?')

    server.assert_all_sent_as_expected()
    assert result.output == 'It is sunny and 22 °C in Paris.'
    call = result.all_messages()[1]
    assert isinstance(call, ModelResponse)
    assert call.parts[0] == ThinkingPart('', signature=SIGNATURE, provider_name='google-gla')
    assert isinstance(call.parts[1], ToolCallPart)
    assert (call.parts[1].tool_name, call.parts[1].args) == ('get_weather', {'city': 'Paris'})
    assert call.finish_reason == 'tool_call'


async def test_parallel_function_calls_with_ids_are_answered_by_id():
    server = ScriptedProvider.load('google/parallel_tool_calls')

    result = await weather_agent(gemini(server, 'gemini-3-pro-preview'), {}).run(
        'Compare the weather in Paris and London.'
    )

    server.assert_all_sent_as_expected()
    assert result.output == 'Both cities are sunny.'
    calls = result.all_messages()[1]
    assert isinstance(calls, ModelResponse)
    assert [c.tool_call_id for c in calls.tool_calls] == ['fc_9a3b4c5d', 'fc_1e2f3a4b']


async def test_structured_output_forces_a_function_call():
    server = ScriptedProvider.load('google/structured_output_tool')

    result = await Agent(gemini(server), output_type=CityInfo).run('Tell me about Paris.')

    server.assert_all_sent_as_expected()
    assert result.output == CityInfo(city='Paris', country='France', population=2102650)


async def test_native_structured_output_sends_a_response_json_schema():
    server = ScriptedProvider.load('google/structured_output_native')
    schema = server.exchanges[0]['request']['generationConfig']['responseJsonSchema']
    params = ModelRequestParameters(output_mode='native', output_object=OutputObjectDefinition(json_schema=schema))

    response = await gemini(server).request([ModelRequest.user_text_prompt('Tell me about Paris.')], None, params)

    server.assert_all_sent_as_expected()
    assert CityInfo.model_validate_json(response.text or '').city == 'Paris'


async def test_thought_summaries_stay_in_history_and_only_the_signature_goes_back():
    server = ScriptedProvider.load('google/thinking_round_trip')
    agent = Agent(gemini(server, 'gemini-2.5-pro'), capabilities=[Thinking(effort='high')])

    @agent.tool_plain
    def count_letters(word: str, letter: str) -> int:
        """Count a letter in a word."""
        return word.count(letter)

    result = await agent.run("How many r's are in strawberry? Use the counter.")

    server.assert_all_sent_as_expected()
    call = result.all_messages()[1]
    assert isinstance(call, ModelResponse)
    assert call.parts[0] == ThinkingPart(
        "**Counting letters**\n\nI spell out s-t-r-a-w-b-e-r-r-y and count three r's.",
        signature='EpIECo8EAdHtim9vKt2Lp0qX3n8cY4wZ1sR6fB5gT7hU2jK9mN0oP3qS',
        provider_name='google-gla',
    )
    assert call.usage.reasoning_tokens == 311
    assert result.output == "There are 3 r's in strawberry."


async def test_streamed_text_arrives_as_part_events():
    server = ScriptedProvider.load('google/text_stream')
    agent = Agent(gemini(server), instructions='Be concise.')

    async with agent.run_stream('What is the capital of France?') as result:
        chunks = [chunk async for chunk in result.stream_text(delta=True, debounce_by=None)]

    server.assert_all_sent_as_expected()
    assert server.sent[0].url.endswith('/models/gemini-2.5-flash:streamGenerateContent?alt=sse')
    assert chunks == ['The capital', ' of France is Paris.']
    assert result.usage.output_tokens == 8


async def test_streamed_function_calls_arrive_whole_after_their_signature():
    server = ScriptedProvider.load('google/tool_calls_stream')
    agent = weather_agent(gemini(server), {})

    async with agent.run_stream_events('Compare the weather in Paris and London.') as stream:
        events = [e async for e in stream if isinstance(e, PartStartEvent | PartDeltaEvent | PartEndEvent)]

    server.assert_all_sent_as_expected()
    starts = [e for e in events if isinstance(e, PartStartEvent)]
    assert [type(e.part).__name__ for e in starts] == ['ThinkingPart', 'ToolCallPart', 'ToolCallPart', 'TextPart']
    assert starts[0].part == ThinkingPart('', signature=SIGNATURE, provider_name='google-gla')
    assert [(p.tool_name, p.args) for p in (starts[1].part, starts[2].part) if isinstance(p, ToolCallPart)] == [
        ('get_weather', {'city': 'Paris'}),
        ('get_weather', {'city': 'London'}),
    ]
    assert events[-2:] == [
        PartDeltaEvent(0, TextPartDelta(' are sunny.')),
        PartEndEvent(0, TextPart('Both cities are sunny.')),
    ]


async def test_streamed_thoughts_become_one_thinking_part_signed_by_the_answer():
    server = ScriptedProvider.load('google/thinking_stream')
    agent = Agent(gemini(server, 'gemini-3-flash-preview'))

    async with agent.run_stream_events(
        "How many r's are in strawberry?", model_settings={'thinking': 'low', 'max_tokens': 2000}
    ) as stream:
        events = [e async for e in stream if isinstance(e, PartStartEvent | PartDeltaEvent | PartEndEvent)]

    server.assert_all_sent_as_expected()
    signature = 'EpIECo8EAdHtim9vKt2Lp0qX3n8cY4wZ1sR6fB5gT7hU2jK9mN0oP3qS'
    thought = ThinkingPart(
        "**Counting letters**\n\nThree r's in strawberry.", signature=signature, provider_name='google-gla'
    )
    assert events == [
        PartStartEvent(0, ThinkingPart('**Counting letters**\n\n', provider_name='google-gla')),
        PartDeltaEvent(0, ThinkingPartDelta("Three r's in strawberry.")),
        PartDeltaEvent(0, ThinkingPartDelta(signature_delta=signature)),
        PartEndEvent(0, thought, next_part_kind='text'),
        PartStartEvent(1, TextPart("There are 3 r's."), previous_part_kind='thinking'),
        PartEndEvent(1, TextPart("There are 3 r's.")),
    ]


@pytest.mark.parametrize(
    ('fixture', 'status', 'retryable', 'retry_after'),
    [
        ('error_400', 400, False, None),
        ('error_401', 401, False, None),
        ('error_429', 429, True, 37.0),
        ('error_500', 500, True, None),
    ],
)
async def test_http_errors_become_model_http_errors_with_their_retry_posture(
    fixture: str, status: int, retryable: bool, retry_after: float | None
):
    server = ScriptedProvider.load(f'google/{fixture}')

    with pytest.raises(ModelHTTPError) as info:
        await Agent(gemini(server)).run('hello')

    server.assert_all_sent_as_expected()
    assert info.value.status_code == status
    assert info.value.body == server.exchanges[0]['response']
    assert info.value.retryable is retryable
    assert info.value.retry_after == retry_after
    converted = to_application_error(info.value)
    assert converted is not None
    assert converted.non_retryable is not retryable
    if retry_after is not None:
        assert converted.next_retry_delay is not None
        assert converted.next_retry_delay.total_seconds() == retry_after


async def test_settings_and_native_tools_shape_the_generation_config():
    server = ScriptedProvider.load('google/text')
    server.exchanges[0]['request'] = {
        'contents': [{'role': 'user', 'parts': [{'text': 'hello'}]}],
        'tools': [{'googleSearch': {}}, {'codeExecution': {}}, {'urlContext': {}}],
        'generationConfig': {
            'temperature': 0.3,
            'topP': 0.8,
            'maxOutputTokens': 256,
            'stopSequences': ['END'],
            'seed': 42,
            'thinkingConfig': {'thinkingBudget': 0},
        },
        'safetySettings': [{'category': 'HARM_CATEGORY_HARASSMENT', 'threshold': 'BLOCK_NONE'}],
    }
    agent = Agent(
        gemini(server), native_tools=[{'kind': 'web_search'}, {'kind': 'code_execution'}, {'kind': 'web_fetch'}]
    )
    settings: Any = {
        'temperature': 0.3,
        'top_p': 0.8,
        'max_tokens': 256,
        'stop_sequences': ['END'],
        'seed': 42,
        'thinking': False,
        'timeout': 30,
        'extra_headers': {'x-goog-user-project': 'my-project'},
        'extra_body': {'safetySettings': [{'category': 'HARM_CATEGORY_HARASSMENT', 'threshold': 'BLOCK_NONE'}]},
    }

    await agent.run('hello', model_settings=settings)

    server.assert_all_sent_as_expected()
    assert server.sent[0].headers['x-goog-user-project'] == 'my-project'
    assert server.sent[0].timeout['read'] == 30


async def test_code_execution_parts_come_back_as_native_tool_parts_and_go_back_as_gemini_parts():
    server = ScriptedProvider.load('google/code_execution')
    agent = Agent(gemini(server), native_tools=[CodeExecutionTool()])

    first = await agent.run('What is the sum of 0..9? Run code.')
    second = await agent.run('Now times two?', message_history=first.all_messages())

    server.assert_all_sent_as_expected()
    response = first.all_messages()[-1]
    assert isinstance(response, ModelResponse)
    call, result = response.parts[1:3]
    assert isinstance(call, NativeToolCallPart)
    assert isinstance(result, NativeToolReturnPart)
    assert (call.tool_name, call.args) == ('code_execution', {'language': 'PYTHON', 'code': 'print(sum(range(10)))'})
    assert (result.content, result.tool_call_id) == ({'outcome': 'OUTCOME_OK', 'output': '45\n'}, call.tool_call_id)
    assert response.usage == RequestUsage(input_tokens=50, output_tokens=40, details={'tool_use_prompt_tokens': 30})
    assert first.output == "I'll compute it.\n\nThe sum is 45."  # text parts a native tool separates
    assert second.output == '90.'
