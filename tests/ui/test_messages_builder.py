"""`MessagesBuilder`: parts given one at a time are grouped into alternating requests and responses."""

from __future__ import annotations

from agent.messages import (
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.ui import MessagesBuilder


def test_consecutive_parts_of_one_kind_share_a_message_and_a_change_of_kind_starts_one() -> None:
    system, user = SystemPromptPart('Be brief'), UserPromptPart('weather?')
    thinking, call = ThinkingPart('hmm'), ToolCallPart('get_weather', {'city': 'Paris'}, tool_call_id='c1')
    result, retry = ToolReturnPart('get_weather', 'sunny', tool_call_id='c1'), RetryPromptPart('again')
    text = TextPart('Sunny')

    builder = MessagesBuilder()
    for part in [system, user, thinking, call, result, retry, text]:
        builder.add(part)

    assert [type(m) for m in builder.messages] == [ModelRequest, ModelResponse, ModelRequest, ModelResponse]
    assert [list(m.parts) for m in builder.messages] == [[system, user], [thinking, call], [result, retry], [text]]


def test_adding_replaces_the_parts_list_instead_of_mutating_it() -> None:
    parts = [UserPromptPart('hi')]
    builder = MessagesBuilder(messages=[ModelRequest(parts=parts)])

    builder.add(UserPromptPart('again'))

    assert len(parts) == 1
    assert len(builder.messages[0].parts) == 2


def test_a_new_builder_starts_empty_and_builders_do_not_share_messages() -> None:
    first, second = MessagesBuilder(), MessagesBuilder()

    first.add(TextPart('x'))

    assert second.messages == []
    assert len(first.messages) == 1
