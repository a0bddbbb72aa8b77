"""Output types that include `None`: an empty response is the answer `None` rather than a reason to ask again."""

from __future__ import annotations

import pytest

from agent import Agent, ModelRetry, RunContext
from agent.exceptions import UnexpectedModelBehavior, UserError
from agent.messages import ModelMessage, ModelRequest, ModelResponse, RetryPromptPart, TextPart
from agent.models.function import AgentInfo, FunctionModel


def says_nothing(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[])


async def test_an_empty_response_is_the_output_none_when_none_is_allowed():
    agent = Agent(FunctionModel(says_nothing), output_type=str | None)

    result = await agent.run('anything to add?')

    assert result.output is None
    assert [type(m) for m in result.all_messages()] == [ModelRequest, ModelResponse]


async def test_an_empty_response_is_still_retried_when_none_is_not_allowed():
    agent = Agent(FunctionModel(says_nothing), output_type=str)

    with pytest.raises(UnexpectedModelBehavior, match='empty response'):
        await agent.run('anything to add?')


async def test_output_validators_see_the_none_and_may_ask_again():
    def silent_then_talks(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[]) if len(messages) == 1 else ModelResponse(parts=[TextPart('fine, hello')])

    agent = Agent(FunctionModel(silent_then_talks), output_type=str | None)
    seen: list[str | None] = []

    @agent.output_validator
    def wants_words(ctx: RunContext[None], output: str | None) -> str | None:
        seen.append(output)
        if output is None:
            raise ModelRetry('say something')
        return output

    result = await agent.run('hi')

    assert result.output == 'fine, hello'
    assert seen == [None, 'fine, hello']
    retry = result.all_messages()[2]
    assert isinstance(retry, ModelRequest)
    assert isinstance(retry.parts[0], RetryPromptPart)
    assert retry.parts[0].content == 'say something'


async def test_structured_outputs_with_none_offer_a_none_tool_and_accept_an_empty_response():
    offered: list[str] = []

    def look_then_say_nothing(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.extend(tool.name for tool in info.output_tools)
        return ModelResponse(parts=[])

    agent = Agent(FunctionModel(look_then_say_nothing), output_type=int | None)

    result = await agent.run('a number, if you have one')

    assert result.output is None
    assert offered == ['final_result_int', 'final_result_NoneType']


def test_none_alone_is_not_an_output_type():
    with pytest.raises(UserError, match='other than `None`'):
        Agent(FunctionModel(says_nothing), output_type=None)
