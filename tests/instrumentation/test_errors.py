"""Failures mark their span as an error with an `exception` event; deferrals are not failures."""

from __future__ import annotations

import pytest
from opentelemetry.trace import StatusCode

from agent import Agent, ModelMessage, ModelResponse, TextPart, ToolCallPart
from agent.capabilities import Instrumentation
from agent.exceptions import ApprovalRequired
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel

from ._otel import Telemetry


def _exception_types(span: object) -> list[object]:
    events = getattr(span, 'events', ())
    return [event.attributes.get('exception.type') for event in events if event.name == 'exception']


def test_a_failing_model_request_marks_the_chat_and_run_spans_as_errors(telemetry: Telemetry) -> None:
    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise ConnectionError('provider down')

    agent = Agent(FunctionModel(broken, model_name='m'), name='a', capabilities=[Instrumentation(telemetry.settings())])

    with pytest.raises(ConnectionError):
        agent.run_sync('hi')

    for name in ('chat m', 'invoke_agent a'):
        span = telemetry.span(name)
        assert span.status.status_code is StatusCode.ERROR
        assert _exception_types(span) == ['ConnectionError']
    assert telemetry.tree() == [('invoke_agent a', None), ('chat m', 'invoke_agent a')]


def test_a_failing_tool_marks_its_span_as_an_error(telemetry: Telemetry) -> None:
    agent = Agent(TestModel(), name='a', capabilities=[Instrumentation(telemetry.settings())])

    @agent.tool_plain
    def explode() -> str:
        raise RuntimeError('tool broke')

    with pytest.raises(RuntimeError):
        agent.run_sync('hi')

    tool = telemetry.span('execute_tool explode')
    assert tool.status.status_code is StatusCode.ERROR
    assert tool.status.description == 'RuntimeError: tool broke'
    assert _exception_types(tool) == ['RuntimeError']
    assert telemetry.span('invoke_agent a').status.status_code is StatusCode.ERROR


def test_a_tool_asking_for_a_retry_shows_the_failed_attempt_then_the_next(telemetry: Telemetry) -> None:
    from agent.exceptions import ModelRetry

    attempts: list[int] = []
    agent = Agent(TestModel(), name='a', capabilities=[Instrumentation(telemetry.settings())])

    @agent.tool_plain(retries=2)
    def flaky() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise ModelRetry('try again')
        return 'ok'

    agent.run_sync('hi')

    tools = sorted((s for s in telemetry.spans() if s.name == 'execute_tool flaky'), key=lambda s: s.start_time or 0)
    assert [s.status.status_code for s in tools] == [StatusCode.ERROR, StatusCode.UNSET]
    assert telemetry.span('invoke_agent a').status.status_code is StatusCode.UNSET


def test_a_tool_needing_approval_ends_its_span_without_an_error(telemetry: Telemetry) -> None:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return (
            ModelResponse([ToolCallPart('delete_file', {'path': 'x'})])
            if len(messages) == 1
            else ModelResponse([TextPart('done')])
        )

    from agent import DeferredToolRequests

    agent = Agent(
        FunctionModel(model, model_name='m'),
        output_type=[str, DeferredToolRequests],
        capabilities=[Instrumentation(telemetry.settings())],
    )

    @agent.tool_plain
    def delete_file(path: str) -> str:
        raise ApprovalRequired()

    result = agent.run_sync('delete x')

    assert isinstance(result.output, DeferredToolRequests)
    tool = telemetry.span('execute_tool delete_file')
    assert tool.status.status_code is StatusCode.UNSET
    assert _exception_types(tool) == []
