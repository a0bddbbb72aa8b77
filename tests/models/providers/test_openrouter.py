"""OpenRouter: its provider (key, attribution headers, vendor profiles), its `openrouter_*` settings and the
`thinking` setting as OpenRouter's `reasoning` object, on the wire."""

from __future__ import annotations

from typing import Any

import pytest

from agent import Agent
from agent.exceptions import UserError
from agent.messages import ThinkingPart
from agent.models import infer_model
from agent.models.openai import OpenAIChatModel
from agent.models.openrouter import OpenRouterModel, OpenRouterModelSettings
from agent.native_tools import WebSearchTool
from agent.providers.openrouter import OpenRouterProvider
from agent.settings import ModelSettings

from ._mock import FIXTURES, ScriptedProvider

ENV_VARS = ('OPENROUTER_API_KEY', 'OPENROUTER_APP_URL', 'OPENROUTER_APP_TITLE')


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)


def _model(model_name: str, server: ScriptedProvider, **provider_kwargs: Any) -> OpenRouterModel:
    provider = OpenRouterProvider(api_key='sk-or-test', http_client=server.client(), **provider_kwargs)
    return OpenRouterModel(model_name, provider=provider)


async def _sent_body(model_name: str, settings: ModelSettings, **agent_kwargs: Any) -> dict[str, Any]:
    server = ScriptedProvider.load('openai_chat/text')
    agent = Agent(_model(model_name, server), **agent_kwargs)
    await agent.run('What is the capital of France?', model_settings=settings)
    assert len(server.sent) == 1
    return server.sent[0].body


async def test_requests_go_to_openrouter_with_the_key_and_the_attribution_headers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv('OPENROUTER_APP_TITLE', 'Weather bot')
    server = ScriptedProvider.load('openai_chat/text')

    result = await Agent(_model('openai/gpt-4o', server, app_url='https://example.com')).run('Capital of France?')

    sent = server.sent[0]
    assert sent.url == 'https://openrouter.ai/api/v1/chat/completions'
    assert sent.headers['authorization'] == 'Bearer sk-or-test'
    assert (sent.headers['http-referer'], sent.headers['x-title']) == ('https://example.com', 'Weather bot')
    assert sent.body['model'] == 'openai/gpt-4o'
    assert result.response.provider_name == 'openrouter'


@pytest.mark.parametrize(
    ('model_name', 'thinking', 'reasoning'),
    [
        ('anthropic/claude-sonnet-4.5', True, {'effort': 'medium', 'enabled': True}),
        ('anthropic/claude-sonnet-4.5', 'xhigh', {'effort': 'high', 'enabled': True}),
        ('qwen/qwen3-235b-a22b', 'minimal', {'effort': 'low', 'enabled': True}),
        ('qwen/qwen3-235b-a22b', False, {'effort': 'none'}),
        ('deepseek/deepseek-r1', False, None),  # always reasons, so `thinking=False` is ignored
        ('openai/gpt-4o', None, None),
    ],
)
async def test_thinking_becomes_the_reasoning_object(model_name: str, thinking: Any, reasoning: Any) -> None:
    settings = ModelSettings() if thinking is None else ModelSettings(thinking=thinking)

    body = await _sent_body(model_name, settings)

    assert body.get('reasoning') == reasoning
    assert 'reasoning_effort' not in body


async def test_openrouter_settings_become_body_fields_and_openrouter_reasoning_wins() -> None:
    extra_body = {'user': 'u-1'}
    settings = OpenRouterModelSettings(
        thinking='high',
        openrouter_reasoning={'max_tokens': 2000},
        openrouter_models=['openai/gpt-4o-mini'],
        openrouter_provider={'order': ['azure'], 'allow_fallbacks': False},
        openrouter_preset='support',
        openrouter_transforms=['middle-out'],
        openrouter_usage={'include': True},
        extra_body=extra_body,
    )

    body = await _sent_body('openai/gpt-4o', settings)

    assert {k: body[k] for k in ('reasoning', 'models', 'provider', 'preset', 'transforms', 'usage', 'user')} == {
        'reasoning': {'max_tokens': 2000},
        'models': ['openai/gpt-4o-mini'],
        'provider': {'order': ['azure'], 'allow_fallbacks': False},
        'preset': 'support',
        'transforms': ['middle-out'],
        'usage': {'include': True},
        'user': 'u-1',
    }
    assert not [key for key in body if key.startswith('openrouter_')]
    assert extra_body == {'user': 'u-1'}  # the caller's extra_body is not written to


async def test_web_search_turns_on_the_web_plugin() -> None:
    body = await _sent_body('anthropic/claude-sonnet-4.5', ModelSettings(), native_tools=[WebSearchTool()])

    assert body['plugins'] == [{'id': 'web'}]


async def test_reasoning_comes_back_as_a_thinking_part_and_is_sent_back_in_the_reasoning_field() -> None:
    answer = {
        'id': 'gen-1',
        'model': 'deepseek/deepseek-r1',
        'choices': [
            {
                'index': 0,
                'message': {'role': 'assistant', 'content': 'Paris.', 'reasoning': 'France: capital is Paris.'},
                'finish_reason': 'stop',
            }
        ],
        'usage': {'prompt_tokens': 9, 'completion_tokens': 6, 'total_tokens': 15},
    }
    server = ScriptedProvider([{'request': None, 'response': answer}] * 2, FIXTURES)
    agent = Agent(_model('deepseek/deepseek-r1', server))

    first = await agent.run('Capital of France?')
    await agent.run('And of Spain?', message_history=first.all_messages())

    thinking = ThinkingPart('France: capital is Paris.', id='reasoning', provider_name='openrouter')
    assert first.response.parts[0] == thinking
    assistant = server.sent[1].body['messages'][1]
    assert (assistant['role'], assistant['reasoning']) == ('assistant', 'France: capital is Paris.')


@pytest.mark.parametrize(
    ('model_name', 'always'),
    [
        ('openai/o3', True),
        ('mistralai/magistral-medium-2509', True),
        ('x-ai/grok-3-mini', True),
        ('~anthropic/claude-sonnet-4.5', False),
        ('moonshotai/kimi-k2:free', False),
    ],
)
def test_every_route_can_think_and_always_on_vendors_stay_always_on(model_name: str, always: bool) -> None:
    profile = OpenRouterProvider.model_profile(model_name)

    assert (profile.supports_thinking, profile.thinking_always_enabled) == (True, always)
    assert profile.supported_native_tools == frozenset({'web_search'})


def test_the_openrouter_model_string_builds_an_openrouter_model_with_the_key_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv('OPENROUTER_API_KEY', 'sk-or-env')

    model = infer_model('openrouter:openai/o3')
    chat = OpenAIChatModel('openai/o3', provider='openrouter')

    assert isinstance(model, OpenRouterModel)
    assert (model.system, model.model_name, model.provider.api_key) == ('openrouter', 'openai/o3', 'sk-or-env')
    assert model.profile.thinking_always_enabled is chat.profile.thinking_always_enabled is True


def test_a_missing_openrouter_key_is_a_user_error_naming_the_variable() -> None:
    with pytest.raises(UserError, match='`OPENROUTER_API_KEY`'):
        Agent('openrouter:openai/gpt-4o')
