"""Message fields shared with Pydantic AI: send times, provider fields, response state, valid tool arguments."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

from agent import Agent
from agent._env import RunEnvironment, use_environment
from agent.messages import (
    CompactionPart,
    FunctionToolCallEvent,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
    UserPromptPart,
)
from agent.models import ModelRequestParameters
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel
from agent.usage import RequestUsage


def test_a_request_records_no_send_time_until_a_run_sends_it():
    assert ModelRequest(parts=[UserPromptPart('hi')]).timestamp is None


def test_requests_a_run_sends_are_stamped_with_the_run_environment_clock():
    sent_at = datetime(2031, 5, 6, 7, 8, 9, tzinfo=UTC)
    agent = Agent(TestModel())

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    with use_environment(RunEnvironment(now=lambda: sent_at)):
        result = agent.run_sync('go')

    requests = [m for m in result.all_messages() if isinstance(m, ModelRequest)]
    assert len(requests) == 2
    assert [r.timestamp for r in requests] == [sent_at, sent_at]


def test_the_closing_request_of_tool_results_is_stamped_too():
    sent_at = datetime(2031, 5, 6, 7, 8, 9, tzinfo=UTC)
    agent = Agent(TestModel(), output_type=int)

    with use_environment(RunEnvironment(now=lambda: sent_at)):
        result = agent.run_sync('go')

    last = result.all_messages()[-1]
    assert isinstance(last, ModelRequest)
    assert [p.part_kind for p in last.parts] == ['tool-return']
    assert last.timestamp == sent_at


def test_a_history_written_before_the_new_fields_loads_with_their_defaults():
    old = (
        b'[{"kind":"request","parts":[{"part_kind":"user-prompt","content":"hi","timestamp":"2025-01-01T00:00:00Z"}]},'
        b'{"kind":"response","parts":[{"part_kind":"tool-call","tool_name":"t","args":"{}","tool_call_id":"c"},'
        b'{"part_kind":"text","content":"ok"}],"usage":{"input_tokens":3},"timestamp":"2025-01-01T00:00:01Z"}]'
    )

    request, response = ModelMessagesTypeAdapter.validate_json(old)

    assert isinstance(request, ModelRequest)
    assert (request.timestamp, request.metadata) == (None, None)
    assert isinstance(response, ModelResponse)
    assert (response.state, response.provider_url, response.metadata) == ('complete', None, None)
    call, text = response.parts
    assert isinstance(call, ToolCallPart)
    assert isinstance(text, TextPart)
    assert (call.tool_kind, call.provider_name, call.provider_details) == (None, None, None)
    assert (text.provider_name, text.provider_details) == (None, None)
    assert response.usage == RequestUsage(input_tokens=3)


def test_text_and_tool_call_deltas_carry_provider_name_and_merge_provider_details():
    text = TextPartDelta(' more', provider_name='openai', provider_details={'b': 2}).apply(
        TextPart('some', provider_details={'a': 1})
    )
    call = ToolCallPartDelta(args_delta='}', provider_details={'sig': 'x'}).apply(
        ToolCallPart('t', '{', 'c1', provider_name='google')
    )
    thinking = ThinkingPartDelta('!', provider_details={'k': 1}).apply(ThinkingPart('hm'))

    assert (text.content, text.provider_name, text.provider_details) == ('some more', 'openai', {'a': 1, 'b': 2})
    assert isinstance(call, ToolCallPart)
    assert (call.args, call.provider_name, call.provider_details) == ('{}', 'google', {'sig': 'x'})
    assert thinking.provider_details == {'k': 1}


def test_a_tool_call_delta_that_becomes_a_part_keeps_its_provider_fields():
    delta = ToolCallPartDelta(args_delta='{}', provider_name='google', provider_details={'thought_signature': 's'})

    part = ToolCallPartDelta('lookup').apply(delta)

    assert isinstance(part, ToolCallPart)
    assert (part.provider_name, part.provider_details) == ('google', {'thought_signature': 's'})


async def test_function_tool_call_events_say_whether_the_arguments_were_valid():
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('double', {'x': 'not a number'}, 'bad')])
        if len(messages) == 3:
            return ModelResponse(parts=[ToolCallPart('double', {'x': 2}, 'good')])
        return ModelResponse(parts=[TextPart('done')])

    agent = Agent(FunctionModel(respond))

    @agent.tool_plain
    def double(x: int) -> int:
        return 2 * x

    async with agent.run_stream_events('go') as stream:
        events = [event async for event in stream]

    calls = [(e.tool_call_id, e.args_valid) for e in events if isinstance(e, FunctionToolCallEvent)]
    assert calls == [('bad', False), ('good', True)]


async def test_a_streamed_response_is_incomplete_until_its_stream_ends():
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield 'Hel'
        yield 'lo'

    model = FunctionModel(stream_function=stream)
    states: list[tuple[str, str]] = []
    async with model.request_stream(
        [ModelRequest(parts=[UserPromptPart('hi')])], None, ModelRequestParameters()
    ) as response:
        async for event in response:
            states.append((event.event_kind, response.get().state))
        final = response.get()

    # The part-end event of the last part comes once the provider's stream is over.
    assert states == [('part_start', 'incomplete'), ('part_delta', 'incomplete'), ('part_end', 'complete')]
    assert (final.state, final.text) == ('complete', 'Hello')


def test_compaction_part_has_content_only_with_summary_text():
    assert CompactionPart('Earlier, the user asked about Paris.').has_content()
    assert not CompactionPart(None, provider_name='openai', provider_details={'encrypted_content': 'x'}).has_content()
