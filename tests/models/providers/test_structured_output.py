"""How the HTTP models map native and prompted structured output onto their APIs (through a mock transport)."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from pydantic import BaseModel

from agent import Agent
from agent.exceptions import UserError
from agent.models.anthropic import AnthropicModel
from agent.models.google import GoogleModel
from agent.models.openai import OpenAIChatModel
from agent.output import NativeOutput, PromptedOutput
from agent.providers.anthropic import AnthropicProvider
from agent.providers.google import GoogleProvider
from agent.providers.openai import OpenAIProvider


class City(BaseModel):
    """A city and its country."""

    name: str
    country: str


class _Recorder:
    def __init__(self, response: dict[str, Any]) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.response = response

    def client(self) -> httpx2.AsyncClient:
        def handle(request: httpx2.Request) -> httpx2.Response:
            self.bodies.append(json.loads(request.content))
            return httpx2.Response(200, json=self.response)

        return httpx2.AsyncClient(transport=httpx2.MockTransport(handle))


CITY_JSON = '{"name": "Paris", "country": "France"}'


async def test_openai_chat_sends_native_output_as_a_json_schema_response_format():
    server = _Recorder(
        {
            'id': 'c',
            'choices': [{'index': 0, 'message': {'role': 'assistant', 'content': CITY_JSON}, 'finish_reason': 'stop'}],
        }
    )
    model = OpenAIChatModel('gpt-4o', provider=OpenAIProvider(api_key='k', http_client=server.client()))

    result = await Agent(model, output_type=NativeOutput(City, strict=True)).run('Capital of France?')

    assert result.output == City(name='Paris', country='France')
    assert server.bodies[0]['response_format'] == {
        'type': 'json_schema',
        'json_schema': {
            'name': 'City',
            'description': 'A city and its country.',
            'strict': True,
            'schema': {
                'title': 'City',
                'type': 'object',
                'properties': {'name': {'type': 'string'}, 'country': {'type': 'string'}},
                'required': ['name', 'country'],
                'additionalProperties': False,
            },
        },
    }
    assert 'tools' not in server.bodies[0]


async def test_anthropic_sends_native_output_as_an_output_format_on_models_that_have_it():
    server = _Recorder(
        {
            'id': 'm',
            'type': 'message',
            'role': 'assistant',
            'model': 'claude-sonnet-4-5',
            'content': [{'type': 'text', 'text': CITY_JSON}],
            'stop_reason': 'end_turn',
            'usage': {'input_tokens': 1, 'output_tokens': 1},
        }
    )
    model = AnthropicModel('claude-sonnet-4-5', provider=AnthropicProvider(api_key='k', http_client=server.client()))

    result = await Agent(model, output_type=NativeOutput(City)).run('Capital of France?')

    assert result.output == City(name='Paris', country='France')
    output_format = server.bodies[0]['output_config']['format']
    assert output_format['type'] == 'json_schema'
    assert output_format['schema']['properties'] == {'name': {'type': 'string'}, 'country': {'type': 'string'}}


async def test_anthropic_models_without_structured_outputs_refuse_native_output_but_take_prompted():
    server = _Recorder(
        {
            'id': 'm',
            'type': 'message',
            'role': 'assistant',
            'model': 'claude-3-5-haiku-latest',
            'content': [{'type': 'text', 'text': CITY_JSON}],
            'stop_reason': 'end_turn',
            'usage': {'input_tokens': 1, 'output_tokens': 1},
        }
    )
    model = AnthropicModel(
        'claude-3-5-haiku-latest', provider=AnthropicProvider(api_key='k', http_client=server.client())
    )

    with pytest.raises(UserError, match='Native structured output is not supported by this model'):
        await Agent(model, output_type=NativeOutput(City)).run('Capital of France?')
    result = await Agent(model, output_type=PromptedOutput(City)).run('Capital of France?')

    assert result.output == City(name='Paris', country='France')
    assert '"title": "City"' in server.bodies[0]['system']
    assert 'output_config' not in server.bodies[0]


async def test_gemini_native_output_sends_a_response_schema_and_prompted_with_tools_no_json_mime_type():
    server = _Recorder(
        {
            'candidates': [{'content': {'role': 'model', 'parts': [{'text': CITY_JSON}]}, 'finishReason': 'STOP'}],
            'usageMetadata': {'promptTokenCount': 1, 'candidatesTokenCount': 1},
        }
    )
    model = GoogleModel('gemini-2.5-flash', provider=GoogleProvider(api_key='k', http_client=server.client()))

    await Agent(model, output_type=NativeOutput(City)).run('Capital of France?')
    prompted = Agent(model, output_type=PromptedOutput(City))

    @prompted.tool_plain
    def population(city: str) -> int:
        return 1

    await prompted.run('Capital of France?')

    native_config = server.bodies[0]['generationConfig']
    assert native_config['responseMimeType'] == 'application/json'
    assert native_config['responseJsonSchema']['title'] == 'City'
    assert 'responseMimeType' not in server.bodies[1].get('generationConfig', {})
