"""Providers and model strings: keys and base URLs from the environment, clear errors when a key is missing."""

from __future__ import annotations

import pytest

from agent import Agent
from agent.exceptions import UserError
from agent.models import infer_model
from agent.models.anthropic import AnthropicModel
from agent.models.google import GoogleModel
from agent.models.openai import OpenAIChatModel, OpenAIResponsesModel
from agent.providers import infer_provider
from agent.providers.anthropic import AnthropicProvider
from agent.providers.google import GoogleProvider
from agent.providers.openai import OpenAIProvider

ENV_VARS = (
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_BASE_URL',
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
)


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ('model_string', 'model_class', 'variable', 'system'),
    [
        ('openai:gpt-5.2', OpenAIChatModel, 'OPENAI_API_KEY', 'openai'),
        ('openai-chat:gpt-5.2', OpenAIChatModel, 'OPENAI_API_KEY', 'openai'),
        ('openai-responses:gpt-5.2', OpenAIResponsesModel, 'OPENAI_API_KEY', 'openai'),
        ('anthropic:claude-sonnet-4-5', AnthropicModel, 'ANTHROPIC_API_KEY', 'anthropic'),
        ('google:gemini-2.5-flash', GoogleModel, 'GEMINI_API_KEY', 'google-gla'),
        ('google-gla:gemini-2.5-flash', GoogleModel, 'GOOGLE_API_KEY', 'google-gla'),
    ],
)
def test_model_strings_build_provider_models_with_keys_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, model_string: str, model_class: type, variable: str, system: str
):
    monkeypatch.setenv(variable, 'key-from-env')

    model = infer_model(model_string)

    assert isinstance(model, model_class)
    assert model.model_name == model_string.partition(':')[2]
    assert model.system == system
    assert model.label == f'{system}:{model.model_name}'


@pytest.mark.parametrize(
    ('model_string', 'variables'),
    [
        ('openai:gpt-5.2', ['OPENAI_API_KEY']),
        ('openai-responses:gpt-5.2', ['OPENAI_API_KEY']),
        ('anthropic:claude-sonnet-4-5', ['ANTHROPIC_API_KEY']),
        ('google:gemini-2.5-flash', ['GEMINI_API_KEY', 'GOOGLE_API_KEY']),
    ],
)
def test_a_missing_key_is_a_user_error_naming_the_variable(model_string: str, variables: list[str]):
    with pytest.raises(UserError) as info:
        Agent(model_string)

    for variable in variables:
        assert f'`{variable}`' in info.value.message


def test_a_deferred_model_check_builds_the_provider_only_when_the_model_is_used():
    agent = Agent('anthropic:claude-sonnet-4-5', defer_model_check=True)

    with pytest.raises(UserError, match='ANTHROPIC_API_KEY'):
        agent.run_sync('hi')


def test_openai_base_url_from_the_environment_points_at_a_compatible_server_that_needs_no_key(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv('OPENAI_BASE_URL', 'http://localhost:11434/v1/')

    model = infer_model('openai:llama3.2')

    assert model.base_url == 'http://localhost:11434/v1'
    assert isinstance(model, OpenAIChatModel)
    assert model.provider.auth_headers() == {}


def test_explicit_provider_arguments_win_over_the_environment(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv('OPENAI_API_KEY', 'env-key')
    monkeypatch.setenv('OPENAI_BASE_URL', 'http://env.example/v1')

    provider = OpenAIProvider(base_url='https://api.together.xyz/v1', api_key='explicit', name='together')

    assert provider.base_url == 'https://api.together.xyz/v1'
    assert provider.auth_headers() == {'Authorization': 'Bearer explicit'}
    assert provider.name == 'together'
    assert not provider.is_openai


def test_providers_send_their_own_authentication_headers():
    assert AnthropicProvider(api_key='a').auth_headers() == {'x-api-key': 'a', 'anthropic-version': '2023-06-01'}
    assert GoogleProvider(api_key='g').auth_headers() == {'x-goog-api-key': 'g'}
    assert OpenAIProvider(api_key='o').url('/chat/completions') == 'https://api.openai.com/v1/chat/completions'


def test_an_unknown_provider_name_is_a_user_error():
    with pytest.raises(UserError, match='Unknown provider'):
        infer_provider('mistral')


def test_profiles_declare_structured_output_thinking_and_native_tools():
    openai_chat = OpenAIChatModel('gpt-4o', provider=OpenAIProvider(api_key='k'))
    reasoning = OpenAIResponsesModel('o3', provider=OpenAIProvider(api_key='k'))
    claude = AnthropicModel('claude-sonnet-4-5', provider=AnthropicProvider(api_key='k'))
    gemini = GoogleModel('gemini-2.5-flash', provider=GoogleProvider(api_key='k'))

    assert openai_chat.profile.supports_json_schema_output
    assert not openai_chat.profile.supports_thinking
    assert openai_chat.profile.supported_native_tools == frozenset()
    assert reasoning.profile.supports_thinking
    assert reasoning.profile.supported_native_tools == {
        'web_search',
        'code_execution',
        'image_generation',
        'mcp_server',
    }
    assert claude.profile.supports_json_schema_output
    old_claude = AnthropicModel('claude-3-5-haiku-latest', provider=AnthropicProvider(api_key='k'))
    assert not old_claude.profile.supports_json_schema_output
    assert claude.profile.supported_native_tools == {'web_search', 'code_execution', 'web_fetch', 'mcp_server'}
    assert gemini.profile.supports_json_schema_output
    assert gemini.profile.supported_native_tools == {'web_search', 'code_execution', 'web_fetch'}
    assert all(m.profile.default_structured_output_mode == 'tool' for m in (openai_chat, reasoning, claude, gemini))


async def test_a_native_tool_the_model_lacks_is_a_user_error_before_any_request():
    model = OpenAIChatModel('gpt-4o', provider=OpenAIProvider(api_key='k'))
    agent = Agent(model, native_tools=[{'kind': 'code_execution'}])

    with pytest.raises(UserError, match='openai:gpt-4o does not support the native tool'):
        await agent.run('hi')
