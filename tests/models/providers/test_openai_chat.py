"""`OpenAIChatModel` against recorded Chat Completions exchanges: exact request bodies, parts, usage, errors."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from pydantic import BaseModel

from activities._errors import to_application_error
from agent import Agent
from agent.capabilities import Thinking
from agent.exceptions import ModelAPIError, ModelHTTPError, ModelRetry
from agent.messages import (
    BinaryContent,
    ImageUrl,
    ModelRequest,
    ModelResponse,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
    ToolReturnPart,
)
from agent.models import ModelRequestParameters, OutputObjectDefinition
from agent.models.openai import OpenAIChatModel
from agent.providers.openai import OpenAIProvider
from agent.usage import RequestUsage

from ._mock import ScriptedProvider


class CityInfo(BaseModel):
    """Facts about a city."""

    city: str
    country: str
    population: int


def chat_model(server: ScriptedProvider, model_name: str = 'gpt-4o', **provider: Any) -> OpenAIChatModel:
    provider.setdefault('api_key', 'sk-test')
    return OpenAIChatModel(model_name, provider=OpenAIProvider(http_client=server.client(), **provider))


def weather_agent(model: OpenAIChatModel, weather: dict[str, str] | None = None, **kwargs: Any) -> Agent[None, str]:
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


async def test_plain_text_is_sent_with_instructions_and_read_back_with_usage():
    server = ScriptedProvider.load('openai_chat/text')
    agent = Agent(chat_model(server), instructions='Be concise.')

    result = await agent.run('What is the capital of France?')

    server.assert_all_sent_as_expected()
    [sent] = server.sent
    assert sent.url == 'https://api.openai.com/v1/chat/completions'
    assert sent.headers['authorization'] == 'Bearer sk-test'
    assert result.output == 'The capital of France is Paris.'
    response = result.all_messages()[-1]
    assert isinstance(response, ModelResponse)
    assert response.parts == [TextPart('The capital of France is Paris.')]
    assert response.model_name == 'gpt-4o-2024-08-06'
    assert response.provider_name == 'openai'
    assert response.provider_response_id == 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT'
    assert response.finish_reason == 'stop'
    assert response.usage == RequestUsage(input_tokens=19, output_tokens=8)


async def test_a_tool_call_runs_the_tool_and_sends_its_result_back():
    server = ScriptedProvider.load('openai_chat/tool_round_trip')
    agent = weather_agent(chat_model(server), instructions='Be concise.')

    result = await agent.run('What is the weather in Paris?')

    server.assert_all_sent_as_expected()
    assert result.output == 'It is sunny and 22 °C in Paris.'
    call_response, tool_results = result.all_messages()[1:3]
    assert isinstance(call_response, ModelResponse)
    assert isinstance(tool_results, ModelRequest)
    assert call_response.parts == [ToolCallPart('get_weather', '{"city":"Paris"}', 'call_ZgJ8jWEFB3xQ1YqRzXRsyY6s')]
    assert call_response.finish_reason == 'tool_call'
    [tool_return] = tool_results.parts
    assert isinstance(tool_return, ToolReturnPart)
    assert (tool_return.tool_name, tool_return.content, tool_return.tool_call_id) == (
        'get_weather',
        'sunny, 22 °C',
        'call_ZgJ8jWEFB3xQ1YqRzXRsyY6s',
    )
    assert result.usage().input_tokens == 62 + 91
    assert result.usage().requests == 2


async def test_parallel_tool_calls_in_one_response_are_all_answered():
    server = ScriptedProvider.load('openai_chat/parallel_tool_calls')
    agent = weather_agent(chat_model(server), {})

    result = await agent.run('Compare the weather in Paris and London.', model_settings={'parallel_tool_calls': True})

    server.assert_all_sent_as_expected()
    assert result.output == 'Both cities are sunny.'
    calls = result.all_messages()[1]
    assert isinstance(calls, ModelResponse)
    assert [(c.tool_name, c.args_as_dict()) for c in calls.tool_calls] == [
        ('get_weather', {'city': 'Paris'}),
        ('get_weather', {'city': 'London'}),
    ]


async def test_structured_output_uses_a_required_output_tool():
    server = ScriptedProvider.load('openai_chat/structured_output_tool')
    agent = Agent(chat_model(server), output_type=CityInfo)

    result = await agent.run('Tell me about Paris.')

    server.assert_all_sent_as_expected()
    assert result.output == CityInfo(city='Paris', country='France', population=2102650)


async def test_native_structured_output_sends_a_strict_json_schema():
    server = ScriptedProvider.load('openai_chat/structured_output_native')
    schema = CityInfo.model_json_schema()
    schema.pop('title')
    schema.pop('description')
    for prop in schema['properties'].values():
        prop.pop('title')
    output = OutputObjectDefinition(json_schema=schema, name='city_info', description='Facts about a city.')
    params = ModelRequestParameters(output_mode='native', output_object=output)

    response = await chat_model(server).request([ModelRequest.user_text_prompt('Tell me about Paris.')], None, params)

    server.assert_all_sent_as_expected()
    assert CityInfo.model_validate_json(response.text or '') == CityInfo(
        city='Paris', country='France', population=2102650
    )


async def test_streamed_text_arrives_as_part_events_and_deltas():
    server = ScriptedProvider.load('openai_chat/text_stream')
    agent = Agent(chat_model(server), instructions='Be concise.')

    async with agent.run_stream('What is the capital of France?') as result:
        chunks = [chunk async for chunk in result.stream_text(delta=True, debounce_by=None)]

    server.assert_all_sent_as_expected()
    assert chunks == ['The capital', ' of France', ' is Paris.']
    assert await result.get_output() == 'The capital of France is Paris.'
    assert result.usage.input_tokens == 19
    assert result.usage.output_tokens == 8

    server = ScriptedProvider.load('openai_chat/text_stream')
    agent = Agent(chat_model(server), instructions='Be concise.')
    async with agent.run_stream_events('What is the capital of France?') as stream:
        events = [e async for e in stream if isinstance(e, PartStartEvent | PartDeltaEvent | PartEndEvent)]
    assert events == [
        PartStartEvent(0, TextPart('The capital')),
        PartDeltaEvent(0, TextPartDelta(' of France')),
        PartDeltaEvent(0, TextPartDelta(' is Paris.')),
        PartEndEvent(0, TextPart('The capital of France is Paris.')),
    ]


async def test_streamed_tool_call_arguments_arrive_as_deltas_per_call():
    server = ScriptedProvider.load('openai_chat/tool_calls_stream')
    agent = weather_agent(chat_model(server), {})

    async with agent.run_stream_events('Compare the weather in Paris and London.') as stream:
        events = [e async for e in stream if isinstance(e, PartStartEvent | PartDeltaEvent | PartEndEvent)]

    server.assert_all_sent_as_expected()
    paris, london = 'call_Hq2Wv8Lk3Zp6Rx1Tn9Ym4Jc7', 'call_Bf5Ds1Gk8Qw3Ep6Rt9Yu2Io4'
    assert events[:7] == [
        PartStartEvent(0, ToolCallPart('get_weather', '', paris)),
        PartDeltaEvent(0, ToolCallPartDelta(args_delta='{"ci', tool_call_id=paris)),
        PartDeltaEvent(0, ToolCallPartDelta(args_delta='ty": "Paris"}', tool_call_id=paris)),
        PartEndEvent(0, ToolCallPart('get_weather', '{"city": "Paris"}', paris), next_part_kind='tool-call'),
        PartStartEvent(1, ToolCallPart('get_weather', '', london), previous_part_kind='tool-call'),
        PartDeltaEvent(1, ToolCallPartDelta(args_delta='{"city": ', tool_call_id=london)),
        PartDeltaEvent(1, ToolCallPartDelta(args_delta='"London"}', tool_call_id=london)),
    ]
    assert events[7] == PartEndEvent(1, ToolCallPart('get_weather', '{"city": "London"}', london))
    assert events[-1] == PartEndEvent(0, TextPart('Both cities are sunny.'))


async def test_thinking_effort_maps_to_reasoning_effort_and_reasoning_tokens_are_counted():
    server = ScriptedProvider.load('openai_chat/reasoning_effort')
    agent = Agent(chat_model(server, 'o3-mini'), capabilities=[Thinking(effort='high')])

    result = await agent.run("How many r's are in strawberry?", model_settings={'max_tokens': 2000})

    server.assert_all_sent_as_expected()
    response = result.all_messages()[-1]
    assert isinstance(response, ModelResponse)
    assert response.usage == RequestUsage(input_tokens=15, output_tokens=211, reasoning_tokens=192)


async def test_reasoning_from_a_compatible_server_is_kept_and_sent_back_after_a_tool_call():
    server = ScriptedProvider.load('openai_chat/thinking_round_trip')
    model = chat_model(server, 'deepseek-reasoner', base_url='https://api.deepseek.com', name='deepseek')
    agent = weather_agent(model, capabilities=[Thinking(effort='high')], instructions=None)

    result = await agent.run('What is the weather in Paris?')

    server.assert_all_sent_as_expected()
    assert server.sent[0].url == 'https://api.deepseek.com/chat/completions'
    first, last = result.all_messages()[1], result.all_messages()[-1]
    assert isinstance(first, ModelResponse)
    assert isinstance(last, ModelResponse)
    assert first.parts[0] == ThinkingPart(
        'The user wants the weather in Paris. I should call get_weather.',
        id='reasoning_content',
        provider_name='deepseek',
    )
    assert last.parts == [
        ThinkingPart('The tool says sunny, 22 °C.', id='reasoning_content', provider_name='deepseek'),
        TextPart('It is sunny and 22 °C in Paris.'),
    ]
    assert last.usage == RequestUsage(input_tokens=380, output_tokens=20, reasoning_tokens=9)


async def test_streamed_reasoning_becomes_a_thinking_part_before_the_text():
    server = ScriptedProvider.load('openai_chat/thinking_stream')
    model = chat_model(server, 'deepseek-reasoner', base_url='https://api.deepseek.com/v1', api_key='ds-key')
    agent = Agent(model)

    async with agent.run_stream_events(
        "How many r's are in strawberry?", model_settings={'max_tokens': 1000}
    ) as stream:
        events = [e async for e in stream if isinstance(e, PartStartEvent | PartDeltaEvent | PartEndEvent)]

    server.assert_all_sent_as_expected()
    thinking = ThinkingPart(
        "Count the r's: s-t-r-a-w-b-e-r-r-y has three.", id='reasoning_content', provider_name='openai'
    )
    assert events == [
        PartStartEvent(0, ThinkingPart("Count the r's:", id='reasoning_content', provider_name='openai')),
        PartDeltaEvent(0, ThinkingPartDelta(' s-t-r-a-w-b-e-r-r-y has three.')),
        PartEndEvent(0, thinking, next_part_kind='text'),
        PartStartEvent(1, TextPart('There are'), previous_part_kind='thinking'),
        PartDeltaEvent(1, TextPartDelta(" 3 r's.")),
        PartEndEvent(1, TextPart("There are 3 r's.")),
    ]


@pytest.mark.parametrize(
    ('fixture', 'status', 'retryable', 'retry_after'),
    [
        ('error_400', 400, False, None),
        ('error_401', 401, False, None),
        ('error_429', 429, True, 0.4),
        ('error_500', 500, True, None),
    ],
)
async def test_http_errors_become_model_http_errors_with_their_retry_posture(
    fixture: str, status: int, retryable: bool, retry_after: float | None
):
    server = ScriptedProvider.load(f'openai_chat/{fixture}')
    settings = {'temperature': 3.0} if status == 400 else None
    agent = Agent(chat_model(server))

    with pytest.raises(ModelHTTPError) as info:
        await agent.run('hello', model_settings=settings)

    server.assert_all_sent_as_expected()
    error = info.value
    assert error.status_code == status
    assert error.model_name == 'gpt-4o'
    assert error.body == server.exchanges[0]['response']
    assert error.retryable is retryable
    assert error.retry_after == retry_after
    converted = to_application_error(error)
    assert converted is not None
    assert converted.non_retryable is not retryable
    expected_delay = retry_after and pytest.approx(retry_after)
    assert (converted.next_retry_delay.total_seconds() if converted.next_retry_delay else None) == expected_delay


async def test_a_connection_failure_is_a_model_api_error():
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError('connection refused', request=request)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(refuse))
    model = OpenAIChatModel('gpt-4o', provider=OpenAIProvider(api_key='sk-test', http_client=client))

    with pytest.raises(ModelAPIError, match='connection refused') as info:
        await Agent(model).run('hello')
    assert not isinstance(info.value, ModelHTTPError)


async def test_model_settings_reach_the_body_headers_and_timeout():
    server = ScriptedProvider.load('openai_chat/text')
    server.exchanges[0]['request'] = {
        'model': 'gpt-4o',
        'messages': [{'role': 'user', 'content': 'hello'}],
        'max_completion_tokens': 100,
        'temperature': 0.2,
        'top_p': 0.9,
        'seed': 7,
        'stop': ['END'],
        'presence_penalty': 0.5,
        'frequency_penalty': 0.25,
        'user': 'user-42',
    }
    model = chat_model(server)
    settings: Any = {
        'max_tokens': 100,
        'temperature': 0.2,
        'top_p': 0.9,
        'seed': 7,
        'stop_sequences': ['END'],
        'presence_penalty': 0.5,
        'frequency_penalty': 0.25,
        'timeout': 12.5,
        'parallel_tool_calls': False,  # no tools: not sent
        'extra_headers': {'x-trace': 'abc'},
        'extra_body': {'user': 'user-42'},
    }

    await model.request([ModelRequest.user_text_prompt('hello')], settings, ModelRequestParameters())

    server.assert_all_sent_as_expected()
    [sent] = server.sent
    assert sent.headers['x-trace'] == 'abc'
    assert sent.timeout == {'connect': 12.5, 'read': 12.5, 'write': 12.5, 'pool': 12.5}


async def test_images_are_sent_as_content_parts():
    server = ScriptedProvider.load('openai_chat/text')
    server.exchanges[0]['request'] = {
        'model': 'gpt-4o',
        'messages': [
            {
                'role': 'user',
                'content': [
                    {'type': 'text', 'text': 'Which city is this?'},
                    {'type': 'image_url', 'image_url': {'url': 'https://example.com/paris.jpg', 'detail': 'low'}},
                    {'type': 'image_url', 'image_url': {'url': 'data:image/png;base64,iVBORw=='}},
                ],
            }
        ],
    }
    agent = Agent(chat_model(server))

    await agent.run(
        [
            'Which city is this?',
            ImageUrl('https://example.com/paris.jpg', vendor_metadata={'detail': 'low'}),
            BinaryContent(b'\x89PNG', media_type='image/png'),
        ]
    )

    server.assert_all_sent_as_expected()


async def test_a_tool_retry_is_sent_back_as_the_tool_message_of_its_call():
    server = ScriptedProvider.load('openai_chat/tool_retry')
    agent = Agent(chat_model(server))

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """Get the current weather in a city.

        Args:
            city: The city name.
        """
        if city != 'Paris':
            raise ModelRetry(f'Unknown city {city!r}: did you mean Paris?')
        return 'sunny, 22 °C'

    result = await agent.run('What is the weather in Paris?')

    server.assert_all_sent_as_expected()
    assert result.output == 'It is sunny and 22 °C in Paris.'
