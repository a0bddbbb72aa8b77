"""A failed run ends with `RUN_ERROR` (and nothing after it), with the open parts of the stream closed first."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import RunErrorEvent, ToolCallResultEvent

from agent import Agent
from agent.messages import ModelMessage
from agent.models.function import AgentInfo, FunctionModel
from agent.ui.ag_ui import AGUIAdapter

from ._ag_ui import calling_agent, client_check, encode, run_events, run_input, types


def failing_model_agent() -> Agent[None, str]:
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield 'Let me see'
        raise RuntimeError('The model provider is unavailable.')

    return Agent(FunctionModel(stream_function=stream))


async def test_a_model_error_ends_the_run_with_run_error():
    events = await run_events(AGUIAdapter(failing_model_agent(), run_input()))

    assert types(events)[0] == 'RUN_STARTED'
    assert 'RUN_FINISHED' not in types(events)
    error = events[-1]
    assert isinstance(error, RunErrorEvent)
    assert (error.message, error.code) == ('The model provider is unavailable.', 'RuntimeError')


async def test_the_real_client_accepts_the_error_and_reports_it():
    events = await run_events(AGUIAdapter(failing_model_agent(), run_input()))

    client = client_check(encode(events))

    assert client['error'] is None
    assert client['agent']['runError'] == 'The model provider is unavailable.'


async def test_a_tool_that_crashes_gets_a_failed_result_before_the_run_error():
    agent = calling_agent('explode')

    @agent.tool_plain
    def explode() -> str:
        raise ValueError('boom')

    events: list[Any] = await run_events(AGUIAdapter(agent, run_input()))

    assert types(events)[-2:] == ['TOOL_CALL_RESULT', 'RUN_ERROR']
    result = events[-2]
    assert isinstance(result, ToolCallResultEvent)
    assert (result.tool_call_id, result.content) == ('call-1', 'Tool execution was interrupted by an error.')
    assert events[-1].message == 'boom'
    assert client_check(encode(events))['error'] is None
