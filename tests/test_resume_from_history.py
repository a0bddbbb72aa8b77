"""Running an agent with `message_history` and no prompt: the run continues where the history stops."""

from __future__ import annotations

import pytest

from agent import Agent, RunContext
from agent.exceptions import UserError
from agent.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

from ._agent_helpers import parts_of, scripted, text


def _history_with_unanswered_call() -> list[ModelRequest | ModelResponse]:
    return [
        ModelRequest(parts=[UserPromptPart('double 2')]),
        ModelResponse(parts=[ToolCallPart('double', {'x': 2}, 'c1')]),
    ]


async def test_history_ending_in_unanswered_tool_calls_runs_them_without_a_prompt():
    seen: list[int] = []
    agent = Agent(scripted(text('it is 4')))

    @agent.tool_plain
    def double(x: int) -> int:
        seen.append(x)
        return x * 2

    result = await agent.run(message_history=_history_with_unanswered_call())

    assert result.output == 'it is 4'
    assert seen == [2]
    [tool_return] = parts_of(result.new_messages(), ToolReturnPart)
    assert (tool_return.tool_call_id, tool_return.content) == ('c1', 4)
    assert [type(m) for m in result.new_messages()] == [ModelRequest, ModelResponse]


async def test_history_ending_in_unanswered_tool_calls_refuses_a_new_prompt():
    agent = Agent(scripted())

    @agent.tool_plain
    def double(x: int) -> int:
        return x * 2  # pragma: no cover

    with pytest.raises(UserError, match='resume without a prompt'):
        await agent.run('and now?', message_history=_history_with_unanswered_call())


async def test_history_ending_in_a_final_response_returns_it_without_a_model_call():
    agent = Agent(scripted())  # a model request would fail: nothing is scripted

    history = [ModelRequest(parts=[UserPromptPart('hi')]), ModelResponse(parts=[TextPart('hello there')])]
    result = await agent.run(message_history=history)

    assert result.output == 'hello there'
    assert result.new_messages() == []
    assert result.usage().requests == 0


async def test_history_ending_in_a_final_response_asks_the_model_again_when_the_agent_has_instructions():
    agent = Agent(scripted(text('fresh answer')), instructions='Be brief.')

    history = [ModelRequest(parts=[UserPromptPart('hi')]), ModelResponse(parts=[TextPart('hello there')])]
    result = await agent.run(message_history=history)

    assert result.output == 'fresh answer'
    assert result.usage().requests == 1


async def test_ctx_prompt_is_the_user_content_of_the_request_the_history_ends_with():
    prompts: list[object] = []
    agent = Agent(scripted(text('ok')))

    @agent.instructions
    def record(ctx: RunContext[None]) -> str:
        prompts.append(ctx.prompt)
        return 'Be brief.'

    result = await agent.run(message_history=[ModelRequest(parts=[UserPromptPart('what is up?')])])

    assert result.output == 'ok'
    assert prompts == ['what is up?']
