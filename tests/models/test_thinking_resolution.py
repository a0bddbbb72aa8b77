"""The unified `thinking` setting: how `Model.prepare_request` resolves it, and what each provider profile says."""

from __future__ import annotations

import pytest

from agent import Agent
from agent.capabilities import Thinking
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models import ModelProfile, ModelRequestParameters
from agent.models.function import AgentInfo, FunctionModel
from agent.profiles.anthropic import AnthropicModelProfile, anthropic_model_profile
from agent.profiles.cohere import cohere_model_profile
from agent.profiles.google import GoogleModelProfile, google_model_profile
from agent.profiles.grok import grok_model_profile
from agent.profiles.groq import groq_model_profile
from agent.profiles.mistral import mistral_model_profile
from agent.profiles.openai import openai_model_profile
from agent.settings import ModelSettings, ThinkingLevel


def _answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart('Paris.')])


def _model(*, supports: bool = False, always: bool = False) -> FunctionModel:
    return FunctionModel(_answer, profile=ModelProfile(supports_thinking=supports, thinking_always_enabled=always))


@pytest.mark.parametrize(
    ('supports', 'always', 'asked', 'resolved'),
    [
        (True, False, 'high', 'high'),
        (True, False, True, True),
        (True, False, False, False),
        (False, False, 'high', None),  # a model that cannot think ignores the setting
        (False, True, False, None),  # one that always thinks cannot be told not to
        (False, True, 'low', 'low'),  # but an effort level still reaches it
    ],
)
def test_prepare_request_moves_thinking_from_settings_to_parameters_as_far_as_the_model_can_honour_it(
    supports: bool, always: bool, asked: ThinkingLevel, resolved: ThinkingLevel | None
) -> None:
    settings = ModelSettings(thinking=asked, max_tokens=200)

    prepared, params = _model(supports=supports, always=always).prepare_request(settings, ModelRequestParameters())

    assert params.thinking == resolved
    assert prepared == {'max_tokens': 200}
    assert settings == {'thinking': asked, 'max_tokens': 200}  # the caller's settings are left alone


def test_settings_holding_only_thinking_become_none_and_preparing_again_keeps_the_resolved_thinking() -> None:
    model = _model(supports=True)

    prepared, params = model.prepare_request({'thinking': 'medium'}, ModelRequestParameters())
    again_settings, again = model.prepare_request(prepared, params)

    assert (prepared, params.thinking) == (None, 'medium')
    assert (again_settings, again.thinking) == (None, 'medium')


async def test_a_function_model_sees_the_thinking_capability_in_its_parameters_not_its_settings() -> None:
    seen: list[tuple[ModelSettings | None, ThinkingLevel | None]] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append((info.model_settings, info.model_request_parameters.thinking))
        return ModelResponse(parts=[TextPart('Paris.')])

    model = FunctionModel(answer, profile=ModelProfile(supports_thinking=True))
    agent = Agent(model, capabilities=[Thinking(effort='low')])

    await agent.run('Capital of France?')
    await agent.run('Capital of France?', model_settings=ModelSettings(thinking='high', temperature=0.0))

    assert seen == [(None, 'low'), ({'temperature': 0.0}, 'high')]


def test_a_provider_profile_reads_its_own_fields_from_any_profile() -> None:
    plain = ModelProfile(supports_thinking=True, thinking_always_enabled=True)

    google = GoogleModelProfile.from_profile(plain)

    assert isinstance(google, GoogleModelProfile)
    assert (google.supports_thinking, google.thinking_always_enabled) == (True, True)
    assert google.google_supports_thinking_level is False
    assert GoogleModelProfile.from_profile(google) is google
    assert ModelProfile().update(plain).thinking_always_enabled is True


def test_anthropic_profiles_tell_adaptive_and_budget_thinkers_apart() -> None:
    older = anthropic_model_profile('claude-sonnet-4-5')
    adaptive = anthropic_model_profile('claude-sonnet-4-6')
    newest = anthropic_model_profile('claude-opus-4-7')

    assert isinstance(older, AnthropicModelProfile)
    assert (older.supports_thinking, older.anthropic_supports_adaptive_thinking) == (True, False)
    assert (adaptive.anthropic_supports_adaptive_thinking, adaptive.anthropic_supports_effort) == (True, True)
    assert adaptive.anthropic_supports_xhigh_effort is False
    assert newest.anthropic_supports_xhigh_effort
    assert newest.anthropic_disallows_budget_thinking
    assert newest.anthropic_supports_task_budgets
    assert newest.anthropic_disallows_sampling_settings
    assert anthropic_model_profile('claude-3-5-haiku').supports_thinking is False


@pytest.mark.parametrize(
    ('profile', 'supports', 'always'),
    [
        (google_model_profile('gemini-2.5-flash'), True, False),
        (google_model_profile('gemini-2.5-pro'), True, True),
        (google_model_profile('gemini-2.0-flash'), False, False),
        (openai_model_profile('o3'), True, True),
        (openai_model_profile('gpt-5'), True, True),
        (openai_model_profile('gpt-5.2'), True, False),
        (openai_model_profile('gpt-4o'), False, False),
        (groq_model_profile('qwen/qwen3-32b'), True, False),
        (groq_model_profile('deepseek-r1-distill-llama-70b'), True, True),
        (groq_model_profile('llama-3.1-8b-instant'), False, False),
        (grok_model_profile('grok-4.3'), True, False),
        (grok_model_profile('grok-3-mini'), True, True),
        (grok_model_profile('grok-4'), False, False),
    ],
)
def test_provider_profiles_say_which_models_think_and_which_always_do(
    profile: ModelProfile, supports: bool, always: bool
) -> None:
    assert (profile.supports_thinking, profile.thinking_always_enabled) == (supports, always)


def test_reasoning_only_models_of_mistral_and_cohere_get_a_profile_of_their_own() -> None:
    magistral = mistral_model_profile('magistral-medium-2509')
    command = cohere_model_profile('command-a-reasoning-08-2025')

    assert magistral is not None
    assert command is not None
    assert magistral.thinking_always_enabled
    assert command.thinking_always_enabled
    assert mistral_model_profile('mistral-large-latest') is None
    assert cohere_model_profile('command-r-plus') is None
