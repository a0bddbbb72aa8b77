"""`ModelResponse.provider_url`: each HTTP model records the base URL of the provider that answered."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agent import Agent
from agent.messages import ModelResponse
from agent.models import Model
from agent.models.anthropic import AnthropicModel
from agent.models.google import GoogleModel
from agent.models.openai import OpenAIChatModel, OpenAIResponsesModel
from agent.providers.anthropic import AnthropicProvider
from agent.providers.google import GoogleProvider
from agent.providers.openai import OpenAIProvider

from ._mock import ScriptedProvider

ModelFactory = Callable[[ScriptedProvider], Model]


def openai_chat(server: ScriptedProvider) -> Model:
    return OpenAIChatModel('gpt-4o', provider=OpenAIProvider(api_key='sk-test', http_client=server.client()))


def openai_responses(server: ScriptedProvider) -> Model:
    return OpenAIResponsesModel('gpt-4o', provider=OpenAIProvider(api_key='sk-test', http_client=server.client()))


def anthropic(server: ScriptedProvider) -> Model:
    provider = AnthropicProvider(api_key='sk-ant-test', http_client=server.client())
    return AnthropicModel('claude-sonnet-4-5', provider=provider)


def google(server: ScriptedProvider) -> Model:
    return GoogleModel('gemini-2.5-flash', provider=GoogleProvider(api_key='gm-test', http_client=server.client()))


@pytest.mark.parametrize(
    ('fixture', 'factory', 'provider_url'),
    [
        ('openai_chat/text', openai_chat, 'https://api.openai.com/v1/'),
        ('openai_responses/text', openai_responses, 'https://api.openai.com/v1/'),
        ('anthropic/text', anthropic, 'https://api.anthropic.com/'),
        ('google/text', google, 'https://generativelanguage.googleapis.com/v1beta/'),
    ],
)
async def test_a_response_records_the_base_url_of_the_provider_that_answered(
    fixture: str, factory: ModelFactory, provider_url: str
):
    server = ScriptedProvider.load(fixture)

    result = await Agent(factory(server)).run('What is the capital of France?')

    response = result.all_messages()[-1]
    assert isinstance(response, ModelResponse)
    assert response.provider_url == provider_url


async def test_a_custom_base_url_is_recorded_with_a_trailing_slash():
    server = ScriptedProvider.load('openai_chat/text')
    provider = OpenAIProvider(base_url='http://localhost:11434/v1', api_key='sk-test', http_client=server.client())

    result = await Agent(OpenAIChatModel('gpt-4o', provider=provider)).run('What is the capital of France?')

    assert result.response.provider_url == 'http://localhost:11434/v1/'


@pytest.mark.parametrize(
    ('fixture', 'factory', 'provider_url'),
    [
        ('openai_chat/text_stream', openai_chat, 'https://api.openai.com/v1/'),
        ('openai_responses/text_stream', openai_responses, 'https://api.openai.com/v1/'),
        ('anthropic/text_stream', anthropic, 'https://api.anthropic.com/'),
        ('google/text_stream', google, 'https://generativelanguage.googleapis.com/v1beta/'),
    ],
)
async def test_a_streamed_response_records_the_base_url_of_the_provider_that_answered(
    fixture: str, factory: ModelFactory, provider_url: str
):
    server = ScriptedProvider.load(fixture)

    async with Agent(factory(server)).run_stream('What is the capital of France?') as result:
        await result.get_output()

    assert result.response.provider_url == provider_url
