"""Cerebras: its provider (key, base URL), and reasoning turned on and off through `disable_reasoning`."""

from __future__ import annotations

from typing import Any

import pytest

from agent import Agent
from agent.exceptions import UserError
from agent.models import infer_model
from agent.models.cerebras import CerebrasModel, CerebrasModelSettings
from agent.models.openai import OpenAIChatModel
from agent.providers.cerebras import CerebrasProvider
from agent.settings import ModelSettings

from ._mock import ScriptedProvider


@pytest.fixture(autouse=True)
def _no_key_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv('CEREBRAS_API_KEY', raising=False)


async def _sent(model_name: str, settings: ModelSettings, *, model_class: type[OpenAIChatModel] = CerebrasModel):
    server = ScriptedProvider.load('openai_chat/text')
    model = model_class(model_name, provider=CerebrasProvider(api_key='csk-test', http_client=server.client()))
    result = await Agent(model).run('What is the capital of France?', model_settings=settings)
    assert result.output == 'The capital of France is Paris.'
    assert len(server.sent) == 1
    return server.sent[0]


async def test_requests_go_to_cerebras_chat_completions_with_the_key_as_bearer_token() -> None:
    sent = await _sent('llama-3.3-70b', ModelSettings(temperature=0.2))

    assert sent.url == 'https://api.cerebras.ai/v1/chat/completions'
    assert sent.headers['authorization'] == 'Bearer csk-test'
    assert sent.body['model'] == 'llama-3.3-70b'
    assert sent.body['temperature'] == 0.2


@pytest.mark.parametrize(
    ('thinking', 'disable_reasoning'),
    [(False, True), (True, False), ('high', False)],
)
async def test_thinking_becomes_disable_reasoning_on_a_reasoning_model(thinking: Any, disable_reasoning: bool) -> None:
    sent = await _sent('zai-glm-4.6', ModelSettings(thinking=thinking))

    assert sent.body['disable_reasoning'] is disable_reasoning
    assert 'reasoning_effort' not in sent.body


async def test_thinking_does_not_reach_a_model_that_cannot_reason() -> None:
    sent = await _sent('llama-3.3-70b', ModelSettings(thinking=False))

    assert 'disable_reasoning' not in sent.body


async def test_cerebras_disable_reasoning_wins_and_an_explicit_reasoning_effort_is_sent_as_is() -> None:
    extra_body = {'user': 'u-1'}
    settings = CerebrasModelSettings(
        thinking=True, cerebras_disable_reasoning=True, openai_reasoning_effort='low', extra_body=extra_body
    )

    sent = await _sent('gpt-oss-120b', settings)

    assert (sent.body['disable_reasoning'], sent.body['reasoning_effort'], sent.body['user']) == (True, 'low', 'u-1')
    assert 'cerebras_disable_reasoning' not in sent.body
    assert extra_body == {'user': 'u-1'}  # the caller's extra_body is not written to


async def test_settings_cerebras_rejects_are_left_out() -> None:
    settings = ModelSettings(presence_penalty=0.5, frequency_penalty=0.5, logit_bias={'1': 1}, seed=7)

    sent = await _sent('qwen-3-32b', settings)

    assert not {'presence_penalty', 'frequency_penalty', 'logit_bias'} & set(sent.body)
    assert sent.body['seed'] == 7


async def test_a_chat_model_on_the_cerebras_provider_takes_the_providers_profile() -> None:
    model = OpenAIChatModel('llama-3.3-70b', provider=CerebrasProvider(api_key='csk-test'))

    assert model.profile.supports_thinking is False
    assert CerebrasProvider.model_profile('zai-glm-4.6').supports_thinking is True


def test_the_cerebras_model_string_builds_a_cerebras_model_with_the_key_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv('CEREBRAS_API_KEY', 'csk-env')

    model = infer_model('cerebras:zai-glm-4.6')

    assert isinstance(model, CerebrasModel)
    assert (model.system, model.model_name, model.base_url) == ('cerebras', 'zai-glm-4.6', 'https://api.cerebras.ai/v1')
    assert model.provider.api_key == 'csk-env'


def test_a_missing_cerebras_key_is_a_user_error_naming_the_variable() -> None:
    with pytest.raises(UserError, match='`CEREBRAS_API_KEY`'):
        Agent('cerebras:llama-3.3-70b')
    with pytest.raises(UserError, match='`CEREBRAS_API_KEY`'):
        OpenAIChatModel('llama-3.3-70b', provider='cerebras')
