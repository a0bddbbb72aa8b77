"""Every AG-UI stream we emit, judged by the protocol's own client (`@ag-ui/client`, run by Node).

`tests/ui/js/ag_ui_check.mjs` parses the SSE body as `HttpAgent` does and runs the client's event verifier over
it, then replays it through a real `HttpAgent`; these tests assert the client accepts each kind of run, and that
the check does fail on a broken sequence.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import Tool

from agent import Agent
from agent.messages import (
    BinaryContent,
    CompactionPart,
    FilePart,
    ModelMessage,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    PartEndEvent,
    PartStartEvent,
    TextPart,
    ThinkingPart,
)
from agent.models.function import (
    AgentInfo,
    DeltaThinkingCalls,
    DeltaThinkingPart,
    DeltaToolCall,
    DeltaToolCalls,
    FunctionModel,
)
from agent.tools import DeferredToolRequests
from agent.ui import NativeEvent, StateDeps
from agent.ui.ag_ui import AGUIAdapter, AGUIEventStream

from ._ag_ui import (
    Counter,
    calling_agent,
    client_check,
    counter_agent,
    encode,
    last_request_has_tool_result,
    run_events,
    run_input,
    types,
)


def _accepted(events: list[Any]) -> dict[str, Any]:
    """The client's view of `events`, asserting its verifier accepted all of them."""
    client = client_check(encode(events))
    assert client['error'] is None, client['error']
    assert [e['type'] for e in client['events']] == types(events)
    assert client['agent']['error'] is None
    return client


async def test_the_client_accepts_a_plain_text_answer():
    agent = Agent(FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart('Hello there.')])))

    client = _accepted(await run_events(AGUIAdapter(agent, run_input())))

    assert [(m['role'], m['content']) for m in client['agent']['messages']] == [('assistant', 'Hello there.')]


async def test_the_client_accepts_reasoning_text_tool_calls_and_results():
    agent = calling_agent('ping')

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    events = await run_events(AGUIAdapter(agent, run_input()))
    client = _accepted(events)

    assert [m['role'] for m in client['agent']['messages']] == ['reasoning', 'assistant', 'tool', 'assistant']
    # The thinking's signature comes back with the client's next request and loads into the thinking part.
    user = {'id': 'user-1', 'role': 'user', 'content': 'Hello'}
    body = {'threadId': 'thread-1', 'runId': 'run-2', 'messages': [user, *client['agent']['messages']]}
    reloaded = AGUIAdapter.load_messages(AGUIAdapter.build_run_input(json.dumps(body).encode()).messages)
    thinking = reloaded[1].parts[0]
    assert isinstance(thinking, ThinkingPart)
    assert (thinking.content, thinking.signature) == ('Need a tool.', 'sig-1')


async def test_the_client_accepts_parallel_tool_calls_in_one_response():
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        if last_request_has_tool_result(messages):
            yield 'Both done.'
            return
        yield {0: DeltaToolCall(name='ping', json_args='{"n": 1}', tool_call_id='call-a')}
        yield {1: DeltaToolCall(name='ping', json_args='{"n":', tool_call_id='call-b')}
        yield {0: DeltaToolCall(json_args='')}
        yield {1: DeltaToolCall(json_args=' 2}')}

    agent = Agent(FunctionModel(stream_function=stream))

    @agent.tool_plain
    def ping(n: int) -> str:
        return f'pong {n}'

    client = _accepted(await run_events(AGUIAdapter(agent, run_input())))

    [assistant, *tools, answer] = client['agent']['messages']
    assert [(c['id'], c['function']['arguments']) for c in assistant['toolCalls']] == [
        ('call-a', '{"n": 1}'),
        ('call-b', '{"n": 2}'),
    ]
    assert sorted(t['content'] for t in tools) == ['pong 1', 'pong 2']
    assert answer['content'] == 'Both done.'


async def test_the_client_accepts_a_pending_frontend_tool_call():
    tool = Tool(name='show_map', description='Show a map.', parameters={'type': 'object', 'properties': {}})
    adapter = AGUIAdapter(calling_agent('show_map'), run_input(tools=[tool]))

    client = _accepted(await run_events(adapter))

    assert client['agent']['outcome'] == {'type': 'success', 'pendingToolCallIds': ['call-1']}


async def test_the_client_accepts_an_approval_interrupt():
    agent = calling_agent('delete', output_type=[str, DeferredToolRequests])

    @agent.tool_plain(requires_approval=True)
    def delete() -> str:
        return 'deleted'

    client = _accepted(await run_events(AGUIAdapter(agent, run_input())))

    assert client['agent']['outcome']['type'] == 'interrupt'
    assert [i['toolCallId'] for i in client['agent']['pendingInterrupts']] == ['call-1']


async def test_the_client_accepts_state_snapshots():
    client = _accepted(
        await run_events(AGUIAdapter(counter_agent(), run_input(state={'count': 0})), deps=StateDeps(Counter()))
    )

    assert client['agent']['state'] == {'count': 1}


async def test_the_client_accepts_a_run_error():
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield 'Partial'
        raise ConnectionError('lost the model')

    client = _accepted(await run_events(AGUIAdapter(Agent(FunctionModel(stream_function=stream)), run_input())))

    assert client['agent']['runError'] == 'lost the model'


async def test_the_client_accepts_native_tools_files_and_compactions():
    call = NativeToolCallPart('web_search', {'query': 'ag-ui'}, 'ws-1', provider_name='openai')
    native_events: list[NativeEvent] = [
        PartStartEvent(0, call),
        PartEndEvent(0, call),
        PartStartEvent(1, NativeToolReturnPart('web_search', [{'title': 'AG-UI'}], 'ws-1', provider_name='openai')),
        PartStartEvent(2, FilePart(BinaryContent(b'\x89PNG', media_type='image/png'))),
        PartStartEvent(3, CompactionPart('Earlier: greetings.')),
        PartStartEvent(4, TextPart('Found it.')),
        PartEndEvent(4, TextPart('Found it.')),
    ]

    async def source() -> AsyncIterator[NativeEvent]:
        for event in native_events:
            yield event

    events = [e async for e in AGUIEventStream[Any, Any](run_input()).transform_stream(source())]
    client = _accepted(events)

    assert 'ACTIVITY_SNAPSHOT' in types(events)
    tool_call = client['agent']['messages'][0]['toolCalls'][0]
    assert tool_call['id'] == 'pyd_ai_builtin|openai|ws-1'


def test_the_check_rejects_a_broken_sequence():
    body = ''.join(
        f'data: {line}\n\n'
        for line in (
            '{"type":"RUN_STARTED","threadId":"t","runId":"r"}',
            # Arguments for a tool call that was never started.
            '{"type":"TOOL_CALL_ARGS","toolCallId":"nope","delta":"{}"}',
            '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}',
        )
    )

    client = client_check(body)

    assert client['error'] is not None
    assert 'nope' in client['error']
    assert [e['type'] for e in client['events']] == ['RUN_STARTED']


async def test_the_check_rejects_one_of_our_streams_with_an_event_removed():
    agent = Agent(FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart('Hello there.')])))
    events = await run_events(AGUIAdapter(agent, run_input()))
    broken = [e for e in events if e.type.value != 'TEXT_MESSAGE_START']

    client = client_check(encode(broken))

    assert client['error'] is not None
    assert 'TEXT_MESSAGE_START' in client['error']


async def test_every_event_is_stamped_and_a_thinking_part_is_one_reasoning_block_with_one_id():
    async def think(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaThinkingCalls]:
        yield {0: DeltaThinkingPart(content='Hmm.', signature='sig')}
        yield 'Done.'

    events = await run_events(AGUIAdapter(Agent(FunctionModel(stream_function=think)), run_input()))
    _accepted(events)

    assert all(isinstance(event.timestamp, int) for event in events)
    reasoning = [e for e in events if e.type.value.startswith('REASONING')]
    assert [e.type.value for e in reasoning] == [
        'REASONING_START',
        'REASONING_MESSAGE_START',
        'REASONING_MESSAGE_CONTENT',
        'REASONING_MESSAGE_END',
        'REASONING_ENCRYPTED_VALUE',
        'REASONING_END',
    ]
    assert len({getattr(e, 'message_id', None) or getattr(e, 'entity_id', None) for e in reasoning}) == 1
    started = events[0].model_dump(by_alias=True, exclude_none=True)
    assert 'protocolVersion' not in started


async def test_the_deprecated_agent_ag_ui_module_warns_and_run_ag_ui_streams_encoded_events():
    import importlib
    import sys

    import pytest

    from agent._warnings import PydanticAIDeprecationWarning

    sys.modules.pop('agent.ag_ui', None)
    with pytest.warns(PydanticAIDeprecationWarning, match='`agent.ag_ui` module is deprecated'):
        module = importlib.import_module('agent.ag_ui')

    chunks = [chunk async for chunk in module.run_ag_ui(Agent('test'), run_input())]

    assert chunks[0].startswith('data: {"type":"RUN_STARTED"')
    assert '"type":"RUN_FINISHED"' in chunks[-1]
