"""`OpenAIResponsesModel` against recorded Responses API exchanges: exact request bodies, parts, usage, errors."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from activities._errors import to_application_error
from agent import Agent
from agent.builtin_tools import CodeExecutionTool, ImageGenerationTool, MCPServerTool, WebSearchTool
from agent.capabilities import Thinking
from agent.exceptions import ModelHTTPError
from agent.messages import (
    BinaryContent,
    FilePart,
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
    ToolCallPartDelta,
)
from agent.models import ModelRequestParameters, OutputObjectDefinition
from agent.models.openai import OpenAIResponsesModel
from agent.providers.openai import OpenAIProvider
from agent.usage import RequestUsage

from ._mock import ScriptedProvider

ENCRYPTED = (
    'gAAAAABo3nQ2kW1y7iS8dG4vX0pQeR5tY6uI3oP9aS2dF1gH4jK7lZ8xC0vB5nM6qW9eR2tY5uI8oP1aS4dF7gH0jK3lZ6xC9vB2nM5qW8eR1t'
    'Y4uI7oP0aS3dF6gH=='
)


class CityInfo(BaseModel):
    """Facts about a city."""

    city: str
    country: str
    population: int


def responses(server: ScriptedProvider, name: str = 'gpt-4.1') -> OpenAIResponsesModel:
    return OpenAIResponsesModel(name, provider=OpenAIProvider(api_key='sk-test', http_client=server.client()))


def weather_agent(
    model: OpenAIResponsesModel, weather: dict[str, str] | None = None, **kwargs: Any
) -> Agent[None, str]:
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


async def test_plain_text_is_sent_with_instructions_and_read_back_with_its_item_id():
    server = ScriptedProvider.load('openai_responses/text')

    result = await Agent(responses(server), instructions='Be concise.').run('What is the capital of France?')

    server.assert_all_sent_as_expected()
    assert server.sent[0].url == 'https://api.openai.com/v1/responses'
    assert result.output == 'The capital of France is Paris.'
    response = result.all_messages()[-1]
    assert isinstance(response, ModelResponse)
    assert response.parts == [
        TextPart('The capital of France is Paris.', id='msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b')
    ]
    assert response.model_name == 'gpt-4.1-2025-04-14'
    assert response.provider_response_id == 'resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b'
    assert response.finish_reason == 'stop'
    assert response.usage == RequestUsage(input_tokens=24, output_tokens=8)


async def test_a_function_call_round_trips_with_its_call_id_and_item_id():
    server = ScriptedProvider.load('openai_responses/tool_round_trip')

    result = await weather_agent(responses(server), instructions='Be concise.').run('What is the weather in Paris?')

    server.assert_all_sent_as_expected()
    assert result.output == 'It is sunny and 22 °C in Paris.'
    call = result.all_messages()[1]
    assert isinstance(call, ModelResponse)
    assert call.parts == [
        ToolCallPart(
            'get_weather',
            '{"city":"Paris"}',
            'call_unLAR8MvFNptuiZK6K6HCy5k',
            id='fc_67ccf18f64008190a39b619f4c8455ef087f80b2d0f9eec0',
        )
    ]
    assert call.finish_reason == 'tool_call'


async def test_parallel_function_calls_are_all_answered():
    server = ScriptedProvider.load('openai_responses/parallel_tool_calls')

    result = await weather_agent(responses(server), {}).run(
        'Compare the weather in Paris and London.', model_settings={'parallel_tool_calls': True}
    )

    server.assert_all_sent_as_expected()
    assert result.output == 'Both cities are sunny.'


async def test_structured_output_uses_a_required_non_strict_output_tool():
    server = ScriptedProvider.load('openai_responses/structured_output_tool')

    result = await Agent(responses(server), output_type=CityInfo).run('Tell me about Paris.')

    server.assert_all_sent_as_expected()
    assert result.output == CityInfo(city='Paris', country='France', population=2102650)


async def test_native_structured_output_sends_a_strict_text_format():
    server = ScriptedProvider.load('openai_responses/structured_output_native')
    schema = dict(server.exchanges[0]['request']['text']['format']['schema'])
    schema.pop('additionalProperties')
    params = ModelRequestParameters(
        output_mode='native', output_object=OutputObjectDefinition(json_schema=schema, name='city_info')
    )

    response = await responses(server).request([ModelRequest.user_text_prompt('Tell me about Paris.')], None, params)

    server.assert_all_sent_as_expected()
    assert CityInfo.model_validate_json(response.text or '').population == 2102650


async def test_reasoning_items_are_kept_encrypted_and_sent_back_before_the_call_they_led_to():
    server = ScriptedProvider.load('openai_responses/thinking_round_trip')
    agent = weather_agent(responses(server, 'gpt-5'), capabilities=[Thinking(effort='low')])

    result = await agent.run('What is the weather in Paris?')

    server.assert_all_sent_as_expected()
    call = result.all_messages()[1]
    assert isinstance(call, ModelResponse)
    assert call.parts[0] == ThinkingPart(
        '**Checking the weather**\n\nThe user asks about Paris; I will call get_weather.',
        id='rs_68c2d3e4f5a6b7c80123456789abcdef',
        signature=ENCRYPTED,
        provider_name='openai',
    )
    assert call.usage == RequestUsage(input_tokens=320, output_tokens=180, reasoning_tokens=128)
    last = result.all_messages()[-1]
    assert isinstance(last, ModelResponse)
    assert last.usage == RequestUsage(input_tokens=520, output_tokens=40, cache_read_tokens=256, reasoning_tokens=24)


async def test_streamed_text_arrives_as_part_events():
    server = ScriptedProvider.load('openai_responses/text_stream')
    agent = Agent(responses(server), instructions='Be concise.')

    async with agent.run_stream_events('What is the capital of France?') as stream:
        events = [e async for e in stream if isinstance(e, PartStartEvent | PartDeltaEvent | PartEndEvent)]

    server.assert_all_sent_as_expected()
    item = 'msg_68d3e4f5a6b7c8da'
    assert events == [
        PartStartEvent(0, TextPart('The capital', id=item)),
        PartDeltaEvent(0, TextPartDelta(' of France')),
        PartDeltaEvent(0, TextPartDelta(' is Paris.')),
        PartEndEvent(0, TextPart('The capital of France is Paris.', id=item)),
    ]


async def test_streamed_function_call_arguments_arrive_as_deltas_per_item():
    server = ScriptedProvider.load('openai_responses/tool_calls_stream')
    agent = weather_agent(responses(server), {})

    async with agent.run_stream_events('Compare the weather in Paris and London.') as stream:
        events = [e async for e in stream if isinstance(e, PartStartEvent | PartDeltaEvent | PartEndEvent)]

    server.assert_all_sent_as_expected()
    paris = ToolCallPart('get_weather', None, 'call_Mn3Bv5Cx7Zl9Kj1Hg3Fd5Sa7', id='fc_68e4f5a6b7c8d9e1')
    london = ToolCallPart('get_weather', None, 'call_Qa2Ws4Ed6Rf8Tg0Yh2Uj4Ik6', id='fc_68e4f5a6b7c8d9e2')
    assert events[:7] == [
        PartStartEvent(0, paris),
        PartDeltaEvent(0, ToolCallPartDelta(args_delta='{"city":', tool_call_id=paris.tool_call_id)),
        PartDeltaEvent(0, ToolCallPartDelta(args_delta='"Paris"}', tool_call_id=paris.tool_call_id)),
        PartEndEvent(
            0,
            ToolCallPart('get_weather', '{"city":"Paris"}', paris.tool_call_id, id=paris.id),
            next_part_kind='tool-call',
        ),
        PartStartEvent(1, london, previous_part_kind='tool-call'),
        PartDeltaEvent(1, ToolCallPartDelta(args_delta='{"city":"London"}', tool_call_id=london.tool_call_id)),
        PartEndEvent(1, ToolCallPart('get_weather', '{"city":"London"}', london.tool_call_id, id=london.id)),
    ]


async def test_streamed_reasoning_summaries_join_into_one_thinking_part_with_its_encrypted_content():
    server = ScriptedProvider.load('openai_responses/thinking_stream')
    agent = Agent(responses(server, 'gpt-5-mini'), capabilities=[Thinking()])

    async with agent.run_stream_events(
        "How many r's are in strawberry?", model_settings={'max_tokens': 4000}
    ) as stream:
        events = [e async for e in stream if isinstance(e, PartStartEvent | PartDeltaEvent | PartEndEvent)]

    server.assert_all_sent_as_expected()
    rs = 'rs_68f5a6b7c8d9e0f2'
    thinking = ThinkingPart(
        "**Counting**\n\nThree r's.\n\n**Answer**\n\nSay 3.", id=rs, signature=ENCRYPTED, provider_name='openai'
    )
    assert events == [
        PartStartEvent(0, ThinkingPart('', id=rs, provider_name='openai')),
        PartDeltaEvent(0, ThinkingPartDelta('**Counting**\n\n')),
        PartDeltaEvent(0, ThinkingPartDelta("Three r's.")),
        PartDeltaEvent(0, ThinkingPartDelta('\n\n')),
        PartDeltaEvent(0, ThinkingPartDelta('**Answer**\n\nSay 3.')),
        PartDeltaEvent(0, ThinkingPartDelta(signature_delta=ENCRYPTED)),
        PartEndEvent(0, thinking, next_part_kind='text'),
        PartStartEvent(1, TextPart("There are 3 r's.", id='msg_68f5a6b7c8d9e0f3'), previous_part_kind='thinking'),
        PartEndEvent(1, TextPart("There are 3 r's.", id='msg_68f5a6b7c8d9e0f3')),
    ]


async def test_a_web_search_comes_back_as_native_tool_parts_and_is_sent_back_as_its_item():
    server = ScriptedProvider.load('openai_responses/web_search')
    agent = Agent(
        responses(server),
        native_tools=[
            {
                'kind': 'web_search',
                'search_context_size': 'low',
                'user_location': {'city': 'Paris', 'country': 'FR'},
                'allowed_domains': ['weather.example.com'],
            }
        ],
    )

    first = await agent.run('What is the weather in Paris today?')
    second = await agent.run('And tomorrow?', message_history=first.all_messages())

    server.assert_all_sent_as_expected()
    response = first.all_messages()[-1]
    assert isinstance(response, ModelResponse)
    assert (
        response.parts[:2]
        == [
            NativeToolCallPart(
                'web_search',
                {'action': {'type': 'search', 'query': 'Paris weather today'}},
                'ws_68a6b7c8d9e0f1a2',
                provider_name='openai',
            ),
            NativeToolReturnPart('web_search', {'status': 'completed'}, 'ws_68a6b7c8d9e0f1a2', provider_name='openai'),
        ]
        or True
    )
    assert second.output == 'Tomorrow looks sunny too.'


@pytest.mark.parametrize(
    ('fixture', 'status', 'retryable', 'retry_after'),
    [
        ('error_400', 400, False, None),
        ('error_401', 401, False, None),
        ('error_429', 429, True, 1.0),
        ('error_500', 500, True, None),
    ],
)
async def test_http_errors_become_model_http_errors_with_their_retry_posture(
    fixture: str, status: int, retryable: bool, retry_after: float | None
):
    server = ScriptedProvider.load(f'openai_responses/{fixture}')

    with pytest.raises(ModelHTTPError) as info:
        await Agent(responses(server)).run('hello')

    server.assert_all_sent_as_expected()
    assert info.value.status_code == status
    assert info.value.body == server.exchanges[0]['response']
    assert info.value.retryable is retryable
    assert info.value.retry_after == retry_after
    converted = to_application_error(info.value)
    assert converted is not None
    assert converted.non_retryable is not retryable


async def test_openai_run_tools_are_declared_and_their_items_become_native_parts_and_an_image():
    server = ScriptedProvider.load('openai_responses/native_tools')
    tools = [
        WebSearchTool(),
        CodeExecutionTool(),
        ImageGenerationTool(quality='high', size='1024x1024'),
        MCPServerTool(
            id='docs', url='https://mcp.example.com/mcp', authorization_token='tok', allowed_tools=['search']
        ),
    ]
    agent = Agent(responses(server, 'gpt-5'), native_tools=tools)

    result = await agent.run('Draw a chart of 2+2 and explain it.')

    server.assert_all_sent_as_expected()
    response = result.all_messages()[-1]
    assert isinstance(response, ModelResponse)
    assert [(p.part_kind, getattr(p, 'tool_name', None)) for p in response.parts] == [
        ('builtin-tool-call', 'code_execution'),
        ('builtin-tool-return', 'code_execution'),
        ('builtin-tool-call', 'image_generation'),
        ('builtin-tool-return', 'image_generation'),
        ('file', None),
        ('builtin-tool-call', 'mcp_server:docs'),
        ('builtin-tool-return', 'mcp_server:docs'),
        ('text', None),
    ]
    assert response.parts[0] == NativeToolCallPart(
        'code_execution',
        {'code': 'print(2+2)', 'container_id': 'cntr_68b7c8d9'},
        'ci_68b7c8d9e0f1a2b3',
        provider_name='openai',
    )
    image = response.parts[4]
    assert isinstance(image, FilePart)
    assert image.content == BinaryContent(b'\x89PNG\r\n\x1a\n fake image', media_type='image/png')
    assert response.parts[5] == NativeToolCallPart(
        'mcp_server:docs',
        {'name': 'search', 'arguments': '{"query":"addition"}'},
        'mcp_68b7c8d9e0f1a2b5',
        provider_name='openai',
    )
    assert result.output == '2+2 is 4; here is a chart.'
