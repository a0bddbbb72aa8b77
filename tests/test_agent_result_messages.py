"""A run result's messages, and message history continuing a conversation."""

from __future__ import annotations

import dataclasses
from typing import Any

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart, UserPromptPart
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel

from ._agent_helpers import City, parts_of, text

# ----- messages of a result -----


def last_request(messages: list[ModelMessage]) -> ModelRequest:
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    return last


async def test_all_messages_can_replace_the_output_tool_return_content():
    agent = Agent(TestModel(), output_type=City)
    result = await agent.run('City')

    replaced = result.all_messages(output_tool_return_content='Thanks, got it.')

    assert replaced[:-1] == result.all_messages()[:-1]
    [part] = last_request(replaced).parts
    assert isinstance(part, ToolReturnPart)
    assert (part.tool_name, part.content) == ('final_result', 'Thanks, got it.')
    [new_part] = last_request(result.new_messages(output_tool_return_content='Noted.')).parts
    assert isinstance(new_part, ToolReturnPart)
    assert new_part.content == 'Noted.'
    [kept] = last_request(result.all_messages()).parts
    assert isinstance(kept, ToolReturnPart)
    assert kept.content == 'Final result processed.'


async def test_replacing_the_output_tool_return_content_keeps_everything_else():
    agent = Agent(TestModel(), output_type=City, instructions='Be exact.')
    result = await agent.run('City')

    original = last_request(result.all_messages())
    replaced = last_request(result.all_messages(output_tool_return_content='Thanks, got it.'))

    [original_part] = original.parts
    assert replaced == dataclasses.replace(
        original, parts=[dataclasses.replace(original_part, content='Thanks, got it.')]
    )
    assert replaced.conversation_id == result.conversation_id


async def test_new_messages_exclude_the_history_passed_in():
    agent = Agent(TestModel(custom_output_text='reply'))
    first = await agent.run('one')

    second = await agent.run('two', message_history=first.all_messages())

    assert len(first.all_messages()) == 2
    assert second.all_messages()[:2] == first.all_messages()
    new = second.new_messages()
    assert len(new) == 2
    assert isinstance(new[0], ModelRequest)
    assert isinstance(new[0].parts[0], UserPromptPart)
    assert new[0].parts[0].content == 'two'
    assert second.new_messages() == second.all_messages()[2:]


async def test_message_history_continues_the_conversation_for_the_model():
    seen: list[list[str]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompts = [p.content for p in parts_of(messages, UserPromptPart)]
        seen.append(prompts)
        return text(f'heard {len(prompts)} prompts')

    agent = Agent(FunctionModel(respond), system_prompt='Be kind.')
    first = await agent.run('My name is Ann.')
    second = await agent.run('What is my name?', message_history=first.all_messages())

    assert seen == [['My name is Ann.'], ['My name is Ann.', 'What is my name?']]
    assert second.output == 'heard 2 prompts'
    # The system prompt starts a conversation; it is not repeated when one is continued.
    system_prompts = [
        p
        for m in second.all_messages()
        if isinstance(m, ModelRequest)
        for p in m.parts
        if p.part_kind == 'system-prompt'
    ]
    assert len(system_prompts) == 1


async def test_passed_history_is_not_mutated_by_the_run():
    agent = Agent(TestModel(custom_output_text='ok'))
    first = await agent.run('one')
    history = first.all_messages()
    snapshot = list(history)

    await agent.run('two', message_history=history)

    assert history == snapshot
    assert len(history) == 2


async def test_a_history_ending_in_an_unanswered_request_is_sent_with_the_new_prompt_as_one_request():
    seen: list[list[list[Any]]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append([[getattr(p, 'content', None) for p in m.parts] for m in messages])
        return text('answered')

    agent = Agent(FunctionModel(respond))
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart('first')])]

    result = await agent.run('second', message_history=history)

    # The model gets one request; the history keeps the given request and this run's own apart.
    assert seen == [[['first', 'second']]]
    assert [[getattr(p, 'content', None) for p in m.parts] for m in result.all_messages()] == [
        ['first'],
        ['second'],
        ['answered'],
    ]
    assert [[getattr(p, 'content', None) for p in m.parts] for m in result.new_messages()] == [['second'], ['answered']]
    assert len(history) == 1
