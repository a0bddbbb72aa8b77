"""The GenAI client metrics: `gen_ai.client.token.usage` and `gen_ai.client.operation.duration`."""

from __future__ import annotations

import pytest

from agent import Agent, ModelMessage, ModelResponse, TextPart
from agent.capabilities import Instrumentation
from agent.models.function import AgentInfo, FunctionModel
from agent.usage import RequestUsage

from ._otel import Telemetry

_CHAT = {'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'function', 'gen_ai.request.model': 'm'}


def _answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse([TextPart('hi')], usage=RequestUsage(input_tokens=30, output_tokens=7))


def test_token_usage_is_recorded_per_token_type(telemetry: Telemetry) -> None:
    agent = Agent(FunctionModel(_answer, model_name='m'), capabilities=[Instrumentation(telemetry.settings())])

    agent.run_sync('hi')
    agent.run_sync('again')

    points = {p.attributes['gen_ai.token.type']: p for p in telemetry.points('gen_ai.client.token.usage')}  # pyright: ignore[reportOptionalSubscript]
    assert set(points) == {'input', 'output'}
    assert (points['input'].sum, points['input'].count) == (60, 2)
    assert (points['output'].sum, points['output'].count) == (14, 2)
    assert dict(points['input'].attributes or {}) == {
        **_CHAT,
        'gen_ai.response.model': 'm',
        'gen_ai.token.type': 'input',
    }


def test_operation_duration_is_recorded_for_each_request(telemetry: Telemetry) -> None:
    agent = Agent(FunctionModel(_answer, model_name='m'), capabilities=[Instrumentation(telemetry.settings())])

    agent.run_sync('hi')

    (point,) = telemetry.points('gen_ai.client.operation.duration')
    assert point.count == 1
    assert point.sum >= 0
    assert dict(point.attributes or {}) == {**_CHAT, 'gen_ai.response.model': 'm'}


def test_a_failed_request_records_its_duration_with_the_error_type(telemetry: Telemetry) -> None:
    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise TimeoutError('slow provider')

    agent = Agent(FunctionModel(broken, model_name='m'), capabilities=[Instrumentation(telemetry.settings())])

    with pytest.raises(TimeoutError):
        agent.run_sync('hi')

    (point,) = telemetry.points('gen_ai.client.operation.duration')
    assert dict(point.attributes or {}) == {**_CHAT, 'error.type': 'TimeoutError'}
    assert telemetry.points('gen_ai.client.token.usage') == []
