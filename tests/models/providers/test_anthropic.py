"""`AnthropicModel` against recorded Messages API exchanges: exact request bodies, parts, usage, errors."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from activities._errors import to_application_error
from agent import Agent
from agent.builtin_tools import WebSearchTool
from agent.capabilities import Thinking
from agent.exceptions import ModelHTTPError
from agent.messages import (
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    TextPart,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
)
from agent.models.anthropic import AnthropicModel
from agent.providers.anthropic import AnthropicProvider
from agent.usage import RequestUsage

from ._mock import ScriptedProvider

MODEL = 'claude-sonnet-4-5'


class CityInfo(BaseModel):
    """Facts about a city."""

    city: str
    country: str
    population: int


def claude(server: ScriptedProvider) -> AnthropicModel:
    return AnthropicModel(MODEL, provider=AnthropicProvider(api_key='sk-ant-test', http_client=server.client()))


def weather_agent(model: AnthropicModel, weather: dict[str, str] | None = None, **kwargs: Any) -> Agent[None, str]:
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


async def test_plain_text_is_sent_with_a_system_prompt_and_read_back_with_cache_usage():
    server = ScriptedProvider.load('anthropic/text')

    result = await Agent(claude(server), instructions='Be concise.').run('What is the capital of France?')

    server.assert_all_sent_as_expected()
    [sent] = server.sent
    assert sent.url == 'https://api.anthropic.com/v1/messages'
    assert sent.headers['x-api-key'] == 'sk-ant-test'
    assert sent.headers['anthropic-version'] == '2023-06-01'
    assert result.output == 'The capital of France is Paris.'
    response = result.all_messages()[-1]
    assert isinstance(response, ModelResponse)
    assert response.parts == [TextPart('The capital of France is Paris.')]
    assert response.model_name == 'claude-sonnet-4-5-20250929'
    assert response.provider_name == 'anthropic'
    assert response.provider_response_id == 'msg_01XFDUDYJgAACzvnptvVoYEL'
    assert response.finish_reason == 'stop'
    assert response.usage == RequestUsage(
        input_tokens=21 + 1800 + 120, output_tokens=10, cache_read_tokens=1800, cache_write_tokens=120
    )


async def test_a_tool_call_runs_the_tool_and_sends_its_result_back_in_a_user_turn():
    server = ScriptedProvider.load('anthropic/tool_round_trip')

    result = await weather_agent(claude(server), instructions='Be concise.').run('What is the weather in Paris?')

    server.assert_all_sent_as_expected()
    assert result.output == 'It is sunny and 22 °C in Paris.'
    call = result.all_messages()[1]
    assert isinstance(call, ModelResponse)
    assert call.parts == [
        TextPart("I'll check the weather in Paris."),
        ToolCallPart('get_weather', {'city': 'Paris'}, 'toolu_01A09q90qw90lq917835lq9'),
    ]
    assert call.finish_reason == 'tool_call'


async def test_parallel_tool_results_go_back_together_in_one_user_turn():
    server = ScriptedProvider.load('anthropic/parallel_tool_calls')

    result = await weather_agent(claude(server), {}).run('Compare the weather in Paris and London.')

    server.assert_all_sent_as_expected()
    assert result.output == 'Both cities are sunny.'


async def test_structured_output_forces_the_output_tool():
    server = ScriptedProvider.load('anthropic/structured_output')

    result = await Agent(claude(server), output_type=CityInfo).run('Tell me about Paris.')

    server.assert_all_sent_as_expected()
    assert result.output == CityInfo(city='Paris', country='France', population=2102650)


async def test_thinking_blocks_with_signatures_and_redacted_thinking_are_sent_back_unchanged():
    server = ScriptedProvider.load('anthropic/thinking_round_trip')
    agent = weather_agent(claude(server), capabilities=[Thinking(effort='high')])

    result = await agent.run('What is the weather in Paris?')

    server.assert_all_sent_as_expected()
    call = result.all_messages()[1]
    assert isinstance(call, ModelResponse)
    assert call.parts[:2] == [
        ThinkingPart(
            "The user wants Paris weather; I'll call the tool.",
            signature='EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
            provider_name='anthropic',
        ),
        ThinkingPart(
            '',
            id='redacted_thinking',
            signature='EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pqmN3z1pBuRc6qzA',
            provider_name='anthropic',
        ),
    ]


async def test_streamed_text_arrives_as_part_events():
    server = ScriptedProvider.load('anthropic/text_stream')
    agent = Agent(claude(server), instructions='Be concise.')

    async with agent.run_stream('What is the capital of France?') as result:
        chunks = [chunk async for chunk in result.stream_text(delta=True, debounce_by=None)]

    server.assert_all_sent_as_expected()
    assert chunks == ['The capital', ' of France is Paris.']
    assert result.usage.input_tokens == 21
    assert result.usage.output_tokens == 10


async def test_streamed_tool_input_arrives_as_argument_deltas_per_block():
    server = ScriptedProvider.load('anthropic/tool_calls_stream')
    agent = weather_agent(claude(server), {})

    async with agent.run_stream_events('Compare the weather in Paris and London.') as stream:
        events = [e async for e in stream if isinstance(e, PartStartEvent | PartDeltaEvent | PartEndEvent)]

    server.assert_all_sent_as_expected()
    paris, london = 'toolu_01Ab2Cd3Ef4Gh5', 'toolu_01Ij6Kl7Mn8Op9'
    assert events[:9] == [
        PartStartEvent(0, TextPart('Checking both cities.')),
        PartEndEvent(0, TextPart('Checking both cities.'), next_part_kind='tool-call'),
        PartStartEvent(1, ToolCallPart('get_weather', None, paris), previous_part_kind='text'),
        PartDeltaEvent(1, ToolCallPartDelta(args_delta='', tool_call_id=paris)),
        PartDeltaEvent(1, ToolCallPartDelta(args_delta='{"city": "Pa', tool_call_id=paris)),
        PartDeltaEvent(1, ToolCallPartDelta(args_delta='ris"}', tool_call_id=paris)),
        PartEndEvent(1, ToolCallPart('get_weather', '{"city": "Paris"}', paris), next_part_kind='tool-call'),
        PartStartEvent(2, ToolCallPart('get_weather', None, london), previous_part_kind='tool-call'),
        PartDeltaEvent(2, ToolCallPartDelta(args_delta='{"city": "London"}', tool_call_id=london)),
    ]
    assert events[-1] == PartEndEvent(0, TextPart('Both cities are sunny.'))


async def test_streamed_thinking_collects_its_signature():
    server = ScriptedProvider.load('anthropic/thinking_stream')
    agent = Agent(claude(server))

    async with agent.run_stream_events(
        "How many r's are in strawberry?", model_settings={'thinking': 'low', 'max_tokens': 8000}
    ) as stream:
        events = [e async for e in stream if isinstance(e, PartStartEvent | PartDeltaEvent | PartEndEvent)]

    server.assert_all_sent_as_expected()
    signature = 'ErUBCkYIBRgCIkDkWXOhYvMC6iV4Rk1fjYZwSb1bvHzFoI5t9lzVLx4Nj0E'
    thinking = ThinkingPart("Count the r's: there are three.", signature=signature, provider_name='anthropic')
    assert events == [
        PartStartEvent(0, ThinkingPart("Count the r's:", provider_name='anthropic')),
        PartDeltaEvent(0, ThinkingPartDelta(' there are three.')),
        PartDeltaEvent(0, ThinkingPartDelta(signature_delta=signature)),
        PartEndEvent(0, thinking, next_part_kind='text'),
        PartStartEvent(1, TextPart("There are 3 r's."), previous_part_kind='thinking'),
        PartEndEvent(1, TextPart("There are 3 r's.")),
    ]


@pytest.mark.parametrize(
    ('fixture', 'status', 'retryable', 'retry_after'),
    [
        ('error_400', 400, False, None),
        ('error_401', 401, False, None),
        ('error_429', 429, True, 12.0),
        ('error_500', 500, True, None),
        ('error_529', 529, True, None),
    ],
)
async def test_http_errors_become_model_http_errors_with_their_retry_posture(
    fixture: str, status: int, retryable: bool, retry_after: float | None
):
    server = ScriptedProvider.load(f'anthropic/{fixture}')

    with pytest.raises(ModelHTTPError) as info:
        await Agent(claude(server)).run('hello')

    server.assert_all_sent_as_expected()
    assert info.value.status_code == status
    assert info.value.body == server.exchanges[0]['response']
    assert info.value.retryable is retryable
    assert info.value.retry_after == retry_after
    converted = to_application_error(info.value)
    assert converted is not None
    assert converted.non_retryable is not retryable


async def test_an_overloaded_error_in_the_middle_of_a_stream_is_a_retryable_529():
    server = ScriptedProvider.load('anthropic/overloaded_stream')

    with pytest.raises(ModelHTTPError) as info:
        async with Agent(claude(server)).run_stream('hello') as result:
            await result.get_output()

    assert info.value.status_code == 529
    assert info.value.retryable


async def test_settings_and_native_tools_shape_the_request_and_beta_headers():
    server = ScriptedProvider.load('anthropic/text')
    server.exchanges[0]['request'] = {
        'model': MODEL,
        'max_tokens': 300,
        'messages': [{'role': 'user', 'content': [{'type': 'text', 'text': 'hello'}]}],
        'temperature': 0.5,
        'top_p': 0.9,
        'stop_sequences': ['END'],
        'thinking': {'type': 'disabled'},
        'tools': [
            {'type': 'code_execution_20250825', 'name': 'code_execution'},
            {
                'type': 'web_search_20250305',
                'name': 'web_search',
                'max_uses': 3,
                'blocked_domains': ['example.org'],
                'user_location': {'type': 'approximate', 'city': 'Paris', 'country': 'FR'},
            },
        ],
        'mcp_servers': [
            {
                'type': 'url',
                'url': 'https://mcp.example.com/sse',
                'name': 'docs',
                'authorization_token': 'tok',
                'tool_configuration': {'enabled': True, 'allowed_tools': ['search']},
            }
        ],
        'metadata': {'user_id': 'u-1'},
    }
    agent = Agent(
        claude(server),
        native_tools=[
            {'kind': 'code_execution'},
            {
                'kind': 'web_search',
                'max_uses': 3,
                'blocked_domains': ['example.org'],
                'user_location': {'city': 'Paris', 'country': 'FR'},
            },
            {
                'kind': 'mcp_server',
                'id': 'docs',
                'url': 'https://mcp.example.com/sse',
                'authorization_token': 'tok',
                'allowed_tools': ['search'],
            },
        ],
    )
    settings: Any = {
        'max_tokens': 300,
        'temperature': 0.5,
        'top_p': 0.9,
        'stop_sequences': ['END'],
        'anthropic_thinking': {'type': 'disabled'},  # Anthropic's own parameter, sent as it is
        'seed': 1,  # no Anthropic equivalent: not sent
        'extra_body': {'metadata': {'user_id': 'u-1'}},
        'extra_headers': {'anthropic-beta': 'context-1m-2025-08-07'},
    }

    await agent.run('hello', model_settings=settings)

    server.assert_all_sent_as_expected()
    assert server.sent[0].headers['anthropic-beta'] == (
        'code-execution-2025-08-25,mcp-client-2025-04-04,context-1m-2025-08-07'
    )


async def test_a_web_search_round_trips_as_server_tool_blocks():
    server = ScriptedProvider.load('anthropic/web_search')
    agent = Agent(claude(server), native_tools=[WebSearchTool(max_uses=2)])

    first = await agent.run('What is the weather in Paris today?')
    second = await agent.run('And tomorrow?', message_history=first.all_messages())

    server.assert_all_sent_as_expected()
    response = first.all_messages()[-1]
    assert isinstance(response, ModelResponse)
    call_id = 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE'
    assert response.parts[1] == NativeToolCallPart(
        'web_search', {'query': 'Paris weather today'}, call_id, provider_name='anthropic'
    )
    result = response.parts[2]
    assert isinstance(result, NativeToolReturnPart)
    assert (result.tool_name, result.tool_call_id, result.content[0]['url']) == (
        'web_search',
        call_id,
        'https://weather.example.com/paris',
    )
    assert response.usage.details == {'web_search_requests': 1}
    assert second.output == 'Tomorrow looks sunny too.'


async def test_a_streamed_server_tool_call_is_emitted_whole_once_its_input_is_complete():
    server = ScriptedProvider.load('anthropic/web_search_stream')
    agent = Agent(claude(server), native_tools=[WebSearchTool(max_uses=2)])

    async with agent.run_stream_events('What is the weather in Paris today?') as stream:
        starts = [e.part async for e in stream if isinstance(e, PartStartEvent)]

    server.assert_all_sent_as_expected()
    assert [p.part_kind for p in starts] == ['builtin-tool-call', 'builtin-tool-return', 'text']
    assert starts[0] == NativeToolCallPart(
        'web_search', {'query': 'Paris weather today'}, 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE', provider_name='anthropic'
    )
