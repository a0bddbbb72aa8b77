"""History processors: what they return is what the model gets and becomes the run's history."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agent import Agent, RunContext, capture_run_messages
from agent._utils import takes_run_context
from agent.capabilities import ProcessHistory
from agent.exceptions import UserError
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.models.function import AgentInfo, FunctionModel

EARLIER: list[ModelMessage] = [
    ModelRequest(parts=[UserPromptPart('What is the tallest mountain?')]),
    ModelResponse(parts=[TextPart('Everest.')]),
]


def _texts(messages: list[ModelMessage]) -> list[list[str]]:
    """Each message as the text of its parts (prompts, answers, tool results)."""
    return [[str(getattr(part, 'content', getattr(part, 'tool_name', ''))) for part in m.parts] for m in messages]


def _recording(received: list[list[ModelMessage]]) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        received.append(messages)
        return ModelResponse(parts=[TextPart('Sure.')])

    return FunctionModel(respond)


async def test_a_processor_that_drops_old_turns_drops_them_from_the_runs_history_too():
    received: list[list[ModelMessage]] = []

    def last_request_only(messages: list[ModelMessage]) -> list[ModelMessage]:
        return messages[-1:]

    agent = Agent(_recording(received), capabilities=[ProcessHistory(last_request_only)])
    with capture_run_messages() as captured:
        result = await agent.run('And the deepest lake?', message_history=EARLIER)

    assert _texts(received[0]) == [['And the deepest lake?']]
    assert _texts(result.all_messages()) == [['And the deepest lake?'], ['Sure.']]
    assert result.new_messages() == result.all_messages()
    assert captured == result.all_messages()
    assert len(EARLIER) == 2  # the caller's list is not touched


async def test_requests_a_processor_puts_side_by_side_reach_the_model_as_one_but_stay_apart_in_the_history():
    received: list[list[ModelMessage]] = []

    def with_reminder(messages: list[ModelMessage]) -> list[ModelMessage]:
        return [*messages[:-1], ModelRequest(parts=[SystemPromptPart('Answer briefly.')]), messages[-1]]

    agent = Agent(_recording(received), capabilities=[ProcessHistory(with_reminder)])
    result = await agent.run('And the deepest lake?', message_history=EARLIER)

    [*_, sent] = received[0]
    assert isinstance(sent, ModelRequest)
    assert _texts([sent]) == [['Answer briefly.', 'And the deepest lake?']]
    assert sent.run_id is None  # a merged request belongs to no single run
    history = result.all_messages()
    assert _texts(history[2:]) == [['Answer briefly.'], ['And the deepest lake?'], ['Sure.']]
    # The reminder carries no run id, so it counts as earlier history; the prompt onwards is this run's.
    assert _texts(result.new_messages()) == [['And the deepest lake?'], ['Sure.']]


async def test_a_message_a_processor_tags_with_the_runs_id_is_one_of_the_runs_new_messages():
    def with_note(ctx: RunContext[None], messages: list[ModelMessage]) -> list[ModelMessage]:
        note = ModelRequest(parts=[UserPromptPart('(earlier turns summarized)')], run_id=ctx.run_id)
        return [note, messages[-1]]

    agent = Agent(_recording([]), capabilities=[ProcessHistory(with_note)])
    result = await agent.run('And the deepest lake?', message_history=EARLIER)

    assert _texts(result.new_messages()) == [['(earlier turns summarized)'], ['And the deepest lake?'], ['Sure.']]


async def test_a_run_with_tool_calls_keeps_only_what_the_processor_kept_at_each_step():
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if not any(isinstance(part, ToolReturnPart) for part in messages[-1].parts):
            return ModelResponse(parts=[ToolCallPart('lookup', {}, 'c1')])
        return ModelResponse(parts=[TextPart('Baikal.')])

    def last_two(messages: list[ModelMessage]) -> list[ModelMessage]:
        return messages[-2:]

    agent = Agent(FunctionModel(respond), capabilities=[ProcessHistory(last_two)])

    @agent.tool_plain
    def lookup() -> str:
        return 'Lake Baikal, 1642 m'

    result = await agent.run('And the deepest lake?', message_history=EARLIER)

    assert _texts(result.all_messages()) == [['lookup'], ['Lake Baikal, 1642 m'], ['Baikal.']]
    assert result.new_messages() == result.all_messages()


async def test_a_resumed_request_stays_part_of_the_history_given_whatever_the_processor_copies():
    def copied(messages: list[ModelMessage]) -> list[ModelMessage]:
        return [ModelRequest(parts=[SystemPromptPart('Be brief.')]), *(m for m in messages)]

    agent = Agent(_recording([]), capabilities=[ProcessHistory(copied)])
    result = await agent.run(message_history=[ModelRequest(parts=[UserPromptPart('Unanswered question')])])

    assert _texts(result.all_messages()) == [['Be brief.'], ['Unanswered question'], ['Sure.']]
    assert _texts(result.new_messages()) == [['Sure.']]


async def test_a_streamed_run_adopts_the_processed_history_too():
    def last_request_only(messages: list[ModelMessage]) -> list[ModelMessage]:
        return messages[-1:]

    async def stream(messages: list[ModelMessage], info: AgentInfo):
        yield 'Sure.'

    agent = Agent(FunctionModel(stream_function=stream), capabilities=[ProcessHistory(last_request_only)])
    async with agent.run_stream('And the deepest lake?', message_history=EARLIER) as result:
        assert await result.get_output() == 'Sure.'

    assert _texts(result.all_messages()) == [['And the deepest lake?'], ['Sure.']]


@pytest.mark.parametrize(
    ('processor', 'message'),
    [
        (lambda messages: [], 'Processed history cannot be empty.'),
        (lambda messages: messages[:-1], 'Processed history must end with a `ModelRequest`.'),
    ],
    ids=['empty', 'ending with a response'],
)
async def test_a_processed_history_the_model_cannot_be_sent_is_refused_before_asking_it(
    processor: Callable[[list[ModelMessage]], list[ModelMessage]], message: str
):
    received: list[list[ModelMessage]] = []
    agent = Agent(_recording(received), capabilities=[ProcessHistory(processor)])

    with pytest.raises(UserError, match=message.replace('`', '.')):
        await agent.run('And the deepest lake?', message_history=EARLIER)
    assert received == []


def test_only_a_first_parameter_annotated_as_run_context_takes_the_context():
    def untyped(messages):
        return messages  # pragma: no cover

    def typed(ctx: RunContext[None], messages: list[ModelMessage]) -> list[ModelMessage]:
        return messages  # pragma: no cover

    class Trimmer:
        def __call__(self, ctx: RunContext[None], messages: list[ModelMessage]) -> list[ModelMessage]:
            return messages  # pragma: no cover

    assert takes_run_context(untyped) is False
    assert takes_run_context(typed) is True
    assert takes_run_context(Trimmer()) is True


async def test_a_processor_with_an_optional_second_parameter_gets_only_the_messages():
    seen: list[object] = []

    def trim(messages, keep=1):
        seen.append(messages)
        return messages[-keep:]

    def trim_with_ctx(ctx, messages):
        seen.append(ctx)
        return messages

    agent = Agent(_recording([]), capabilities=[ProcessHistory(trim), ProcessHistory(trim_with_ctx)])
    result = await agent.run('And the deepest lake?', message_history=EARLIER)

    assert isinstance(seen[0], list)
    assert isinstance(seen[1], RunContext)
    assert len(result.all_messages()) == 2
