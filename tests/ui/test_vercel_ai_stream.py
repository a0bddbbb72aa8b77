"""Streams of scripted runs, checked with the AI SDK's own `parseJsonEventStream` and `readUIMessageStream`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from agent import Agent, ModelRetry
from agent.messages import ModelMessage
from agent.models.function import (
    AgentInfo,
    DeltaThinkingCalls,
    DeltaThinkingPart,
    DeltaToolCall,
    DeltaToolCalls,
    FunctionModel,
)
from agent.ui.vercel_ai import VercelAIAdapter
from tests.ui._node import run_node
from tests.ui._vercel_ai_agents import chat_body, tool_returns, user_message, weather_agent


async def _checked_stream(agent: Agent[None, Any]) -> dict[str, Any]:
    body = json.dumps(chat_body(user_message('hi'))).encode()
    adapter = VercelAIAdapter(agent, VercelAIAdapter.build_run_input(body))
    sse = ''.join([text async for text in adapter.encode_stream(adapter.run_stream())])
    checked = run_node('vercel_ai_check.mjs', sse)
    assert checked['done'], 'the stream ends with data: [DONE]'
    assert checked['invalid'] == [], 'every chunk matches uiMessageChunkSchema'
    return checked


def _shape(message: dict[str, Any]) -> list[tuple[str, ...]]:
    shape: list[tuple[str, ...]] = []
    for part in message['parts']:
        if part['type'] in ('text', 'reasoning'):
            shape.append((part['type'], part['text'], part['state']))
        elif part['type'].startswith('tool-'):
            shape.append((part['type'], part['state'], json.dumps(part.get('output', part.get('errorText')))))
        else:
            shape.append((part['type'],))
    return shape


async def test_text_reasoning_and_tool_calls_rebuild_the_assistant_message():
    checked = await _checked_stream(weather_agent())

    assert checked['errors'] == []
    assert _shape(checked['message']) == [
        ('step-start',),
        ('reasoning', 'The user wants the weather.', 'done'),
        ('text', 'Checking.', 'done'),
        ('tool-weather', 'output-available', '"sunny in Paris"'),
        ('tool-delete', 'approval-requested', 'null'),
    ]
    weather = checked['message']['parts'][3]
    assert weather['input'] == {'city': 'Paris'}


async def test_tool_error_becomes_an_output_error_and_the_run_goes_on_to_a_second_step():
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        if tool_returns(messages) or len(messages) > 1:
            yield 'Sorry, that failed.'
            return
        yield {0: DeltaToolCall(name='flaky', json_args='{}', tool_call_id='call_flaky')}

    agent: Agent[None, Any] = Agent(FunctionModel(stream_function=stream))

    @agent.tool_plain(retries=1)
    def flaky() -> str:
        raise ModelRetry('the service is down')

    checked = await _checked_stream(agent)

    parts = checked['message']['parts']
    assert [part['type'] for part in parts] == ['step-start', 'tool-flaky', 'step-start', 'text']
    assert parts[1]['state'] == 'output-error'
    assert 'the service is down' in parts[1]['errorText']
    assert parts[3]['text'] == 'Sorry, that failed.'
    # The function model gives no finish reason, so the finish chunk names none (the model's, when it has one).
    assert checked['chunks'][-1] == {'type': 'finish'}


async def test_model_error_is_reported_as_an_error_chunk_and_the_stream_still_finishes():
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaThinkingCalls]:
        yield {0: DeltaThinkingPart(content='Thinking...')}
        yield 'Partial answer'
        raise RuntimeError('model connection lost')

    checked = await _checked_stream(Agent(FunctionModel(stream_function=stream)))

    assert checked['errors'] == ['model connection lost']
    assert [chunk['type'] for chunk in checked['chunks']][-3:] == ['error', 'finish-step', 'finish']
    assert checked['chunks'][-1]['finishReason'] == 'error'
    assert [(part['type'], part['text']) for part in checked['message']['parts'] if 'text' in part] == [
        ('reasoning', 'Thinking...'),
        ('text', 'Partial answer'),
    ]


async def test_tool_call_interrupted_by_an_error_is_closed_with_its_input_and_an_error():
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[DeltaToolCalls]:
        yield {0: DeltaToolCall(name='slow', json_args='{"n": 1}', tool_call_id='call_slow')}

    agent: Agent[None, Any] = Agent(FunctionModel(stream_function=stream))

    @agent.tool_plain
    def slow(n: int) -> str:
        raise RuntimeError('tool crashed')

    checked = await _checked_stream(agent)

    assert checked['errors'] == ['tool crashed']
    tool_part = next(part for part in checked['message']['parts'] if part['type'] == 'tool-slow')
    assert tool_part['state'] == 'output-error'
    assert tool_part['input'] == {'n': 1}
