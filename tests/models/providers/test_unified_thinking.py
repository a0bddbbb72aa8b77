"""The unified `thinking` setting on the wire: what each provider's request carries for each level, and how the
provider's own settings take precedence over it."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from agent import Agent
from agent.exceptions import UserError
from agent.models import ModelRequestParameters, OutputObjectDefinition
from agent.models.anthropic import AnthropicModel, AnthropicModelSettings
from agent.models.google import GoogleModel, GoogleModelSettings
from agent.models.openai import OpenAIChatModel, OpenAIResponsesModel, OpenAIResponsesModelSettings
from agent.providers.anthropic import AnthropicProvider
from agent.providers.google import GoogleProvider
from agent.providers.openai import OpenAIProvider
from agent.settings import ModelSettings
from agent.tools import ToolDefinition

from ._mock import ScriptedProvider


class City(BaseModel):
    """A city."""

    name: str


async def _sent_body(
    scripted: tuple[Any, ScriptedProvider], settings: ModelSettings, **agent_kwargs: Any
) -> dict[str, Any]:
    """The body of the one request a run of the model with `settings` sends (its answer is the fixture's)."""
    model, server = scripted
    await Agent(model, **agent_kwargs).run('What is the capital of France?', model_settings=settings)
    assert len(server.sent) == 1
    return server.sent[0].body


def _claude(name: str) -> tuple[AnthropicModel, ScriptedProvider]:
    server = ScriptedProvider.load('anthropic/text')
    return AnthropicModel(name, provider=AnthropicProvider(api_key='sk-ant-test', http_client=server.client())), server


def _gemini(name: str) -> tuple[GoogleModel, ScriptedProvider]:
    server = ScriptedProvider.load('google/text')
    return GoogleModel(name, provider=GoogleProvider(api_key='gm-test', http_client=server.client())), server


def _chat(name: str) -> tuple[OpenAIChatModel, ScriptedProvider]:
    server = ScriptedProvider.load('openai_chat/text')
    return OpenAIChatModel(name, provider=OpenAIProvider(api_key='sk-test', http_client=server.client())), server


def _responses(name: str) -> tuple[OpenAIResponsesModel, ScriptedProvider]:
    server = ScriptedProvider.load('openai_responses/text')
    return OpenAIResponsesModel(name, provider=OpenAIProvider(api_key='sk-test', http_client=server.client())), server


@pytest.mark.parametrize(
    ('name', 'thinking', 'expected_thinking', 'expected_output_config', 'max_tokens'),
    [
        ('claude-sonnet-4-5', True, {'type': 'enabled', 'budget_tokens': 10000}, None, 14096),
        ('claude-sonnet-4-5', 'low', {'type': 'enabled', 'budget_tokens': 2048}, None, 6144),
        ('claude-sonnet-4-6', True, {'type': 'adaptive'}, None, 4096),
        ('claude-sonnet-4-6', 'xhigh', {'type': 'adaptive'}, {'effort': 'max'}, 4096),
        ('claude-opus-4-7', 'xhigh', {'type': 'adaptive'}, {'effort': 'xhigh'}, 4096),
        ('claude-sonnet-4-5', False, None, None, 4096),
    ],
)
async def test_claude_thinks_adaptively_where_it_can_and_on_a_budget_elsewhere(
    name: str, thinking: Any, expected_thinking: Any, expected_output_config: Any, max_tokens: int
) -> None:
    body = await _sent_body(_claude(name), ModelSettings(thinking=thinking))

    assert body.get('thinking') == expected_thinking
    assert body.get('output_config') == expected_output_config
    assert body['max_tokens'] == max_tokens


async def test_anthropic_settings_win_over_the_unified_thinking_and_sampling_is_left_out_where_refused() -> None:
    settings = AnthropicModelSettings(
        thinking='high',
        anthropic_thinking={'type': 'disabled'},
        anthropic_effort='low',
        anthropic_task_budget={'type': 'tokens', 'total': 2000},
        temperature=0.2,
    )

    body = await _sent_body(_claude('claude-opus-4-7'), settings)

    assert body['thinking'] == {'type': 'disabled'}
    assert body['output_config'] == {'effort': 'low', 'task_budget': {'type': 'tokens', 'total': 2000}}
    assert 'temperature' not in body


async def test_a_task_budget_for_a_model_without_one_and_budget_thinking_for_an_adaptive_only_model_are_refused():
    with pytest.raises(UserError, match='anthropic_task_budget'):
        await _sent_body(
            _claude('claude-sonnet-4-5'),
            AnthropicModelSettings(anthropic_task_budget={'type': 'tokens', 'total': 2000}),
        )
    with pytest.raises(UserError, match='only thinks adaptively'):
        await _sent_body(
            _claude('claude-opus-4-7'),
            AnthropicModelSettings(anthropic_thinking={'type': 'enabled', 'budget_tokens': 2048}),
        )


def test_thinking_claude_settles_an_auto_output_mode_on_native_output_instead_of_an_output_tool() -> None:
    output_tool = ToolDefinition(name='final_result', parameters_json_schema=City.model_json_schema(), kind='output')
    params = ModelRequestParameters(
        output_mode='auto',
        output_tools=[output_tool],
        output_object=OutputObjectDefinition(json_schema=City.model_json_schema()),
        allow_text_output=False,
    )
    model, _ = _claude('claude-sonnet-4-5')

    _, thinking = model.prepare_request(ModelSettings(thinking=True), params)
    _, plain = model.prepare_request(None, params)

    assert (thinking.output_mode, thinking.output_tools, thinking.thinking) == ('native', [], True)
    assert (plain.output_mode, plain.output_tools) == ('tool', [output_tool])


@pytest.mark.parametrize(
    ('name', 'thinking', 'expected'),
    [
        ('gemini-3-pro-preview', 'high', {'includeThoughts': True, 'thinkingLevel': 'high'}),
        ('gemini-3-flash-preview', False, {'thinkingLevel': 'minimal'}),
        ('gemini-2.5-flash', 'low', {'includeThoughts': True, 'thinkingBudget': 2048}),
        ('gemini-2.5-flash', False, {'thinkingBudget': 0}),
        ('gemini-2.5-pro', False, None),  # 2.5 Pro always thinks: `False` is dropped
        ('gemini-2.0-flash', 'high', None),  # no thinking at all
    ],
)
async def test_gemini_takes_a_thinking_level_from_3_on_and_a_budget_before(name: str, thinking: Any, expected: Any):
    body = await _sent_body(_gemini(name), ModelSettings(thinking=thinking))

    assert body.get('generationConfig', {}).get('thinkingConfig') == expected


async def test_google_thinking_config_wins_over_the_unified_thinking() -> None:
    settings = GoogleModelSettings(thinking='high', google_thinking_config={'include_thoughts': False})

    body = await _sent_body(_gemini('gemini-2.5-flash'), settings)

    assert body['generationConfig']['thinkingConfig'] == {'includeThoughts': False}


@pytest.mark.parametrize(
    ('name', 'thinking', 'expected'),
    [
        ('o3', True, 'medium'),
        ('o3', False, None),  # the o-series always reasons
        ('gpt-5.2', False, 'none'),
        ('gpt-5.2', 'xhigh', 'xhigh'),
        ('gpt-4o', 'high', None),  # does not reason
    ],
)
async def test_chat_completions_reasoning_effort_follows_the_thinking_setting(name: str, thinking: Any, expected: Any):
    body = await _sent_body(_chat(name), ModelSettings(thinking=thinking))

    assert body.get('reasoning_effort') == expected


async def test_responses_reasoning_asks_for_a_summary_unless_reasoning_is_off() -> None:
    on = await _sent_body(_responses('gpt-5.2'), ModelSettings(thinking='low'))
    off = await _sent_body(_responses('gpt-5.2'), ModelSettings(thinking=False))
    settings = OpenAIResponsesModelSettings(
        thinking='low', openai_reasoning_effort='high', openai_reasoning_summary='concise'
    )
    own = await _sent_body(_responses('gpt-5.2'), settings)

    assert (on['reasoning'], on['include']) == ({'effort': 'low', 'summary': 'auto'}, ['reasoning.encrypted_content'])
    assert (off['reasoning'], 'include' in off) == ({'effort': 'none'}, False)
    assert own['reasoning'] == {'effort': 'high', 'summary': 'concise'}
