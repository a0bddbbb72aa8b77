"""`ModelSettings.tool_choice`: which tools a request sends and how each provider is told to use them."""

from __future__ import annotations

from typing import Any

import pytest

from agent import Agent, ToolOrOutput, UserError
from agent.messages import ModelMessage, ModelRequest, UserPromptPart
from agent.models import ModelRequestParameters
from agent.models._tool_choice import tools_for_request
from agent.models.anthropic import AnthropicModel
from agent.models.function import AgentInfo, FunctionModel
from agent.models.google import GoogleModel
from agent.models.openai import OpenAIChatModel, OpenAIResponsesModel
from agent.providers.anthropic import AnthropicProvider
from agent.providers.google import GoogleProvider
from agent.providers.openai import OpenAIProvider
from agent.settings import ModelSettings
from agent.tools import ToolDefinition

SCHEMA: dict[str, Any] = {'type': 'object', 'properties': {}}
PARAMS = ModelRequestParameters(
    function_tools=[
        ToolDefinition(name='search', parameters_json_schema=SCHEMA),
        ToolDefinition(name='fetch', parameters_json_schema=SCHEMA),
    ],
    output_tools=[ToolDefinition(name='final_result', parameters_json_schema=SCHEMA, kind='output')],
    output_mode='tool',
    allow_text_output=False,
)
MESSAGES: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart('hi')])]


def _names(settings: ModelSettings | None) -> tuple[list[str], str]:
    chosen = tools_for_request(settings, PARAMS)
    return [tool_def.name for tool_def in chosen.tools], chosen.mode


def test_tool_choice_settles_into_the_tools_sent_and_a_mode() -> None:
    assert _names(None) == (['search', 'fetch', 'final_result'], 'required')
    assert _names({'tool_choice': 'none'}) == (['final_result'], 'required')
    assert _names({'tool_choice': 'required'}) == (['search', 'fetch'], 'required')
    assert _names({'tool_choice': ['fetch']}) == (['fetch'], 'required')
    assert _names({'tool_choice': ToolOrOutput(['search'])}) == (['search', 'final_result'], 'required')


def test_tool_choice_none_without_output_tools_keeps_the_tools_but_forbids_calls() -> None:
    params = ModelRequestParameters(function_tools=PARAMS.function_tools)
    chosen = tools_for_request({'tool_choice': 'none'}, params)
    assert ([t.name for t in chosen.tools], chosen.mode) == (['search', 'fetch'], 'none')


def test_tool_or_output_that_crossed_a_process_boundary_as_a_dict_still_applies() -> None:
    settings: Any = {'tool_choice': {'function_tools': ['fetch']}}
    assert _names(settings) == (['fetch', 'final_result'], 'required')


def test_tool_choice_naming_only_unknown_tools_is_refused_and_a_partly_unknown_one_warns() -> None:
    with pytest.raises(UserError, match='unknown tools'):
        tools_for_request({'tool_choice': ['nope']}, PARAMS)
    with pytest.warns(UserWarning, match="'nope'"):
        chosen = tools_for_request({'tool_choice': ['search', 'nope']}, PARAMS)
    assert [t.name for t in chosen.tools] == ['search']


def test_required_tool_choice_without_function_tools_is_refused() -> None:
    with pytest.raises(UserError, match='needs function tools'):
        tools_for_request({'tool_choice': 'required'}, ModelRequestParameters())


def _body(model: Any, settings: ModelSettings) -> dict[str, Any]:
    merged, params = model.prepare_request(settings, PARAMS)
    return model.build_call(MESSAGES, merged or {}, params, stream=False).body


def test_openai_models_send_the_chosen_tools_and_mode() -> None:
    provider = OpenAIProvider(api_key='k')
    chat = _body(OpenAIChatModel('gpt-4o', provider=provider), {'tool_choice': ['fetch']})
    assert [t['function']['name'] for t in chat['tools']] == ['fetch']
    assert chat['tool_choice'] == 'required'
    responses = _body(OpenAIResponsesModel('gpt-4o', provider=provider), {'tool_choice': ToolOrOutput(['search'])})
    assert [t['name'] for t in responses['tools']] == ['search', 'final_result']
    assert responses['tool_choice'] == 'required'


def test_anthropic_and_google_send_the_chosen_tools_and_mode() -> None:
    anthropic = _body(
        AnthropicModel('claude-sonnet-4-5', provider=AnthropicProvider(api_key='k')), {'tool_choice': 'none'}
    )
    assert [t['name'] for t in anthropic['tools']] == ['final_result']
    assert anthropic['tool_choice'] == {'type': 'any'}
    google = _body(GoogleModel('gemini-2.5-flash', provider=GoogleProvider(api_key='k')), {'tool_choice': ['search']})
    assert [d['name'] for d in google['tools'][0]['functionDeclarations']] == ['search']
    assert google['toolConfig'] == {'functionCallingConfig': {'mode': 'ANY'}}


def test_agent_refuses_a_fixed_tool_choice_that_forces_a_call_on_every_step() -> None:
    agent = Agent(FunctionModel(lambda m, i: None), model_settings={'tool_choice': 'required'})  # pyright: ignore[reportArgumentType]
    prevents = 'prevents the agent from producing a final response'
    with pytest.raises(UserError, match=rf"^`tool_choice='required'` {prevents}"):
        agent.run_sync('hi')
    with pytest.raises(UserError, match=rf"^`tool_choice=\['x'\]` {prevents}"):
        Agent('test').run_sync('hi', model_settings={'tool_choice': ['x']})


def test_agent_run_with_tool_or_output_reaches_the_model_and_can_end() -> None:
    seen: list[Any] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> Any:
        from agent.messages import ModelResponse, TextPart

        seen.append((info.model_settings or {}).get('tool_choice'))
        return ModelResponse(parts=[TextPart('done')])

    agent = Agent(FunctionModel(respond), model_settings={'tool_choice': ToolOrOutput(['search'])})
    assert agent.run_sync('hi').output == 'done'
    assert seen == [ToolOrOutput(['search'])]
