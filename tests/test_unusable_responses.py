"""Responses without usable output: empty, thinking only, content-filtered, or a tool call cut off by the limit."""

from __future__ import annotations

import json

import pytest

from agent import Agent
from agent.exceptions import ContentFilterError, IncompleteToolCall, UnexpectedModelBehavior
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from agent.models.function import AgentInfo, FunctionModel

from ._agent_helpers import City, parts_of, scripted, text


async def test_an_empty_response_is_answered_with_an_empty_request_not_a_retry_prompt():
    seen: list[list[ModelMessage]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        return ModelResponse(parts=[]) if len(seen) == 1 else text('there you go')

    result = await Agent(FunctionModel(respond)).run('Hello')

    assert result.output == 'there you go'
    assert parts_of(result.all_messages(), RetryPromptPart) == []
    follow_up = seen[1][-1]
    assert isinstance(follow_up, ModelRequest)
    assert follow_up.parts == []


async def test_empty_responses_use_up_the_output_retries():
    agent = Agent(scripted(*[ModelResponse(parts=[])] * 3), output_retries=1)

    with pytest.raises(UnexpectedModelBehavior, match=r'Exceeded maximum output retries \(1\)'):
        await agent.run('Hello')


async def test_a_thinking_only_response_gets_a_retry_prompt_naming_what_the_model_may_do():
    agent = Agent(scripted(ModelResponse(parts=[ThinkingPart('hmm')]), text('done')))

    @agent.tool_plain
    def lookup() -> str:
        return 'x'

    result = await agent.run('Hello')

    assert result.output == 'done'
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert retry.content == 'Please return text or call a tool.'


async def test_a_thinking_only_response_with_structured_output_is_asked_for_the_output_tool():
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ThinkingPart('hmm')])
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {'name': 'Paris', 'population': 2})])

    result = await Agent(FunctionModel(respond), output_type=City).run('City')

    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert retry.content == 'Please include your response in a tool call.'


async def test_plain_text_when_only_an_output_tool_is_allowed_is_asked_for_the_tool_call():
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return text('Paris, 2 million')
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {'name': 'Paris', 'population': 2})])

    result = await Agent(FunctionModel(respond), output_type=City).run('City')

    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert retry.content == 'Please include your response in a tool call.'


async def test_text_written_next_to_tool_calls_is_the_output_when_the_model_then_returns_nothing():
    responses = [
        ModelResponse(parts=[TextPart('The answer is 42.'), ToolCallPart('note', {})]),
        ModelResponse(parts=[ThinkingPart('nothing more to say')]),
    ]
    agent = Agent(scripted(*responses))

    @agent.tool_plain
    def note() -> str:
        return 'noted'

    result = await agent.run('Question')

    assert result.output == 'The answer is 42.'
    assert parts_of(result.all_messages(), RetryPromptPart) == []


async def test_an_empty_content_filtered_response_raises_content_filter_error_with_the_response_as_body():
    filtered = ModelResponse(parts=[], finish_reason='content_filter', provider_details={'finish_reason': 'SAFETY'})

    with pytest.raises(ContentFilterError, match=r"Content filter triggered\. Finish reason: 'SAFETY'") as info:
        await Agent(scripted(filtered)).run('Hello')

    assert isinstance(info.value, UnexpectedModelBehavior)
    assert info.value.body is not None
    [dumped] = json.loads(info.value.body)
    assert dumped['finish_reason'] == 'content_filter'


@pytest.mark.parametrize(
    ('details', 'message'),
    [
        ({'block_reason': 'OTHER'}, "Content filter triggered. Block reason: 'OTHER'"),
        ({'refusal': 'I cannot help'}, "Content filter triggered. Refusal: 'I cannot help'"),
        (None, 'Content filter triggered.'),
    ],
)
async def test_the_content_filter_message_names_the_providers_reason(details: dict[str, str] | None, message: str):
    filtered = ModelResponse(parts=[], finish_reason='content_filter', provider_details=details)

    with pytest.raises(ContentFilterError) as info:
        await Agent(scripted(filtered)).run('Hello')

    assert info.value.message == message


async def test_a_tool_call_cut_off_by_the_token_limit_raises_incomplete_tool_call_once_retries_run_out():
    cut = ModelResponse(parts=[ToolCallPart('lookup', '{"city": "Par')], finish_reason='length')
    agent = Agent(scripted(cut, cut), retries=1)

    @agent.tool_plain
    def lookup(city: str) -> str:
        return city

    with pytest.raises(IncompleteToolCall, match=r'Model token limit \(20\) exceeded while generating a tool call'):
        await agent.run('Weather?', model_settings={'max_tokens': 20})


async def test_an_output_tool_call_cut_off_by_the_token_limit_raises_incomplete_tool_call():
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, '{"name": "Pa')], finish_reason='length')

    agent = Agent(FunctionModel(respond), output_type=City, output_retries=1)

    with pytest.raises(IncompleteToolCall, match=r'\(provider default\)'):
        await agent.run('City')


async def test_invalid_arguments_without_the_token_limit_still_exhaust_retries_as_before():
    bad = ModelResponse(parts=[ToolCallPart('lookup', '{"city": "Par')])
    agent = Agent(scripted(bad, bad), retries=1)

    @agent.tool_plain
    def lookup(city: str) -> str:
        return city

    with pytest.raises(UnexpectedModelBehavior) as info:
        await agent.run('Weather?')

    assert not isinstance(info.value, IncompleteToolCall)
