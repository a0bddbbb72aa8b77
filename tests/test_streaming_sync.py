"""`run_stream_sync`: a streamed run read from synchronous code, and the pace at which a streamed run goes on."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import AsyncIterator

import pytest

from agent import Agent, ModelResponse, RunContext, TextPart
from agent.messages import AgentStreamEvent, ModelMessage, PartDeltaEvent
from agent.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from agent.usage import RequestUsage, RunUsage


def _counting_model(pulled: list[str], closed: list[bool] | None = None) -> FunctionModel:
    """A model streaming four words, noting each one as the run pulls it (and, if asked, its cleanup)."""

    async def words(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        try:
            for word in ['one ', 'two ', 'three ', 'four']:
                pulled.append(word)
                yield word
        finally:
            if closed is not None:
                closed.append(True)

    return FunctionModel(stream_function=words)


def _wait_for(condition: object, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        gc.collect()
        if callable(condition) and condition():
            return True
        time.sleep(0.01)
    return False


def _portal_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == 'agent-run-stream-sync']


def test_a_sync_stream_shows_the_run_where_the_reader_is_not_ahead_of_it():
    pulled: list[str] = []
    agent = Agent(_counting_model(pulled))

    result = agent.run_stream_sync('Count')

    # Handed over as the final response starts: the model has given its first word and no more.
    assert pulled == ['one ']
    assert not result.is_complete
    stream = result.stream_text(delta=True, debounce_by=None)
    assert next(stream) == 'one '
    assert pulled == ['one ']
    assert next(stream) == 'two '
    assert pulled == ['one ', 'two ']
    assert list(stream) == ['three ', 'four']
    assert result.is_complete
    assert result.get_output() == 'one two three four'
    assert not _portal_threads()


def test_leaving_a_sync_stream_early_keeps_the_run_for_get_output():
    agent = Agent(_counting_model([]))

    result = agent.run_stream_sync('Count')
    for text in result.stream_text(debounce_by=None):
        assert text == 'one '
        break

    assert not result.is_complete
    assert result.get_output() == 'one two three four'
    assert result.is_complete
    assert result.usage == RunUsage(requests=1, input_tokens=50, output_tokens=4)


def test_a_dropped_sync_stream_ends_its_run_and_its_thread():
    pulled: list[str] = []
    closed: list[bool] = []
    agent = Agent(_counting_model(pulled, closed))

    result = agent.run_stream_sync('Count')
    assert _portal_threads()
    del result

    # The model's stream is cleaned up and the run's thread ends, with nothing left for the garbage collector.
    assert _wait_for(lambda: closed == [True] and not _portal_threads())
    assert pulled == ['one ']


def test_a_sync_stream_response_is_as_streamed_and_its_messages_carry_the_run_ids():
    agent = Agent(_counting_model([]))

    result = agent.run_stream_sync('Count')
    responses = list(result.stream_response(debounce_by=None))

    assert [r.state for r in responses] == ['incomplete'] * (len(responses) - 1) + ['complete']
    assert responses[-1].run_id == result.run_id
    assert result.response.parts == [TextPart('one two three four')]
    assert result.response.run_id is None
    last = result.all_messages()[-1]
    assert isinstance(last, ModelResponse)
    assert last.run_id == result.run_id
    assert last.usage == RequestUsage(input_tokens=50, output_tokens=4)


def test_validate_response_output_of_a_sync_stream_validates_partial_structured_output():
    async def numbers(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[DeltaToolCalls]:
        assert info.output_tools
        yield {0: DeltaToolCall(name=info.output_tools[0].name, json_args='{"response": [1, 2')}
        yield {0: DeltaToolCall(json_args=', 3]}')}

    agent = Agent(FunctionModel(stream_function=numbers), output_type=list[int])

    result = agent.run_stream_sync('Count')
    outputs = [
        result.validate_response_output(response, allow_partial=response.state == 'incomplete')
        for response in result.stream_response(debounce_by=None)
    ]

    assert outputs[0] == [1, 2]
    assert outputs[-1] == [1, 2, 3]


def test_run_stream_sync_refuses_to_run_inside_an_event_loop():
    import asyncio

    from agent import UserError

    async def inside() -> None:
        with pytest.raises(UserError, match='running event loop'):
            Agent(_counting_model([])).run_stream_sync('Count')

    asyncio.run(inside())


@pytest.mark.anyio
async def test_the_run_waits_until_its_event_stream_handler_is_done_with_an_event():
    pulled: list[str] = []
    seen: list[tuple[str, list[str]]] = []

    async def handler(ctx: RunContext[None], events: AsyncIterator[AgentStreamEvent]) -> None:
        async for event in events:
            if isinstance(event, PartDeltaEvent):
                # While the handler holds a delta, the model has not been asked for the next word.
                seen.append((getattr(event.delta, 'content_delta', ''), list(pulled)))

    agent = Agent(_counting_model(pulled))
    await agent.run('Count', event_stream_handler=handler)

    assert seen == [
        ('two ', ['one ', 'two ']),
        ('three ', ['one ', 'two ', 'three ']),
        ('four', ['one ', 'two ', 'three ', 'four']),
    ]
