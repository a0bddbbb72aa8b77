"""The spans of an instrumented run: their tree and their GenAI semantic-convention attributes."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

from opentelemetry.trace import SpanKind, StatusCode

from agent import Agent, ModelMessage, ModelResponse, TextPart, ToolCallPart
from agent.capabilities import Instrumentation
from agent.models import ModelRequestParameters
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel
from agent.models.wrapper import WrapperModel
from agent.settings import ModelSettings
from agent.usage import RequestUsage

from ._otel import Telemetry, attrs


def _calls_tool_then_answers(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(
            [ToolCallPart('get_weather', {'city': 'Paris'}, tool_call_id='call-1')],
            usage=RequestUsage(input_tokens=10, output_tokens=4),
            provider_response_id='resp-1',
            finish_reason='tool_call',
        )
    return ModelResponse(
        [TextPart('Sunny in Paris')],
        usage=RequestUsage(input_tokens=20, output_tokens=5),
        model_name='weather-model-2026',
        provider_response_id='resp-2',
        finish_reason='stop',
    )


class _DatedModel(WrapperModel):
    """Answers with a dated model name, as providers do for an alias (`gpt-x` answered by `gpt-x-2026-01-01`)."""

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        response = await super().request(messages, model_settings, model_request_parameters)
        return replace(response, model_name=f'{self.model_name}-2026')


def _weather_agent(telemetry: Telemetry, **settings: object) -> Agent[None, str]:
    agent = Agent(
        _DatedModel(FunctionModel(_calls_tool_then_answers, model_name='weather-model')),
        name='weather',
        instructions='Answer briefly.',
        capabilities=[Instrumentation(telemetry.settings(**settings))],
    )

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return f'sunny in {city}'

    return agent


def test_model_requests_and_tool_calls_are_children_of_the_run_span(telemetry: Telemetry) -> None:
    _weather_agent(telemetry).run_sync('Weather in Paris?')

    assert telemetry.tree() == [
        ('invoke_agent weather', None),
        ('chat weather-model', 'invoke_agent weather'),
        ('execute_tool get_weather', 'invoke_agent weather'),
        ('chat weather-model', 'invoke_agent weather'),
    ]
    assert {span.context.trace_id for span in telemetry.spans() if span.context} == {
        telemetry.span('invoke_agent weather').context.trace_id  # pyright: ignore[reportOptionalMemberAccess]
    }


def test_run_span_names_the_agent_conversation_and_final_usage(telemetry: Telemetry) -> None:
    result = _weather_agent(telemetry).run_sync('Weather in Paris?', conversation_id='conv-42')

    run = telemetry.span('invoke_agent weather')
    assert run.status.status_code is StatusCode.UNSET
    assert attrs(run) == {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'weather',
        'gen_ai.agent.call.id': result.run_id,
        'gen_ai.conversation.id': 'conv-42',
        'model_name': 'weather-model',
        'gen_ai.aggregated_usage.input_tokens': 30,
        'gen_ai.aggregated_usage.output_tokens': 9,
    }


def test_run_span_can_report_usage_under_the_standard_names(telemetry: Telemetry) -> None:
    _weather_agent(telemetry, use_aggregated_usage_attribute_names=False).run_sync('Weather in Paris?')

    run = attrs(telemetry.span('invoke_agent weather'))
    assert (run['gen_ai.usage.input_tokens'], run['gen_ai.usage.output_tokens']) == (30, 9)
    assert not any(key.startswith('gen_ai.aggregated_usage') for key in run)


def test_chat_span_carries_provider_models_usage_finish_reason_and_settings(telemetry: Telemetry) -> None:
    _weather_agent(telemetry).run_sync('Weather in Paris?', model_settings={'temperature': 0.2, 'max_tokens': 100})

    first = min((s for s in telemetry.spans() if s.name == 'chat weather-model'), key=lambda s: s.start_time or 0)
    assert first.kind is SpanKind.CLIENT
    a = attrs(first)
    assert {key: a[key] for key in a if key not in ('gen_ai.tool.definitions', 'model_request_parameters')} == {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'function',
        'gen_ai.system': 'function',
        'gen_ai.request.model': 'weather-model',
        'gen_ai.response.model': 'weather-model-2026',
        'gen_ai.response.id': 'resp-1',
        'gen_ai.response.finish_reasons': ('tool_call',),
        'gen_ai.usage.input_tokens': 10,
        'gen_ai.usage.output_tokens': 4,
        'gen_ai.request.temperature': 0.2,
        'gen_ai.request.max_tokens': 100,
        'gen_ai.agent.name': 'weather',
        'gen_ai.agent.call.id': a['gen_ai.agent.call.id'],
        'gen_ai.conversation.id': a['gen_ai.conversation.id'],
    }


def test_chat_span_lists_the_tool_definitions_without_content(telemetry: Telemetry) -> None:
    _weather_agent(telemetry).run_sync('Weather in Paris?')

    chat = next(s for s in telemetry.spans() if s.name == 'chat weather-model')
    definitions = json.loads(attrs(chat)['gen_ai.tool.definitions'])
    assert definitions == [
        {
            'type': 'function',
            'name': 'get_weather',
            'description': 'The weather in a city.',
            'parameters': definitions[0]['parameters'],
        }
    ]
    assert definitions[0]['parameters']['properties'] == {'city': {'type': 'string'}}


def test_chat_span_reports_the_server_of_a_model_with_a_base_url(telemetry: Telemetry) -> None:
    class HostedModel(TestModel):
        @property
        def base_url(self) -> str | None:
            return 'https://llm.example.com:8443/v1'

    Agent(HostedModel(), capabilities=[Instrumentation(telemetry.settings())]).run_sync('hi')

    chat = attrs(telemetry.span('chat test'))
    assert (chat['server.address'], chat['server.port']) == ('llm.example.com', 8443)


def test_tool_span_names_the_tool_and_its_call(telemetry: Telemetry) -> None:
    _weather_agent(telemetry).run_sync('Weather in Paris?')

    tool = telemetry.span('execute_tool get_weather')
    assert tool.status.status_code is StatusCode.UNSET
    a = attrs(tool)
    assert {key: a[key] for key in ('gen_ai.operation.name', 'gen_ai.tool.name', 'gen_ai.tool.call.id')} == {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.id': 'call-1',
    }
    assert a['gen_ai.tool.description'] == 'The weather in a city.'


def test_an_agent_called_from_a_tool_nests_its_run_under_the_tool_span(telemetry: Telemetry) -> None:
    inner = Agent(TestModel(), name='inner', capabilities=[Instrumentation(telemetry.settings())])
    outer = Agent(
        TestModel(call_tools=['delegate']), name='outer', capabilities=[Instrumentation(telemetry.settings())]
    )

    @outer.tool_plain
    async def delegate(question: str) -> str:
        return (await inner.run(question)).output

    outer.run_sync('go')

    assert ('invoke_agent inner', 'execute_tool delegate') in telemetry.tree()
    assert ('chat test', 'invoke_agent inner') in telemetry.tree()


def test_a_run_driven_node_by_node_still_nests_its_spans(telemetry: Telemetry) -> None:
    agent = _weather_agent(telemetry)

    async def drive() -> None:
        async with agent.iter('Weather in Paris?') as agent_run:
            async for _ in agent_run:
                pass

    asyncio.run(drive())

    parents = {parent for name, parent in telemetry.tree() if name != 'invoke_agent weather'}
    assert parents == {'invoke_agent weather'}


def test_spans_opened_by_a_tool_nest_under_its_tool_span(telemetry: Telemetry) -> None:
    tracer = telemetry.tracer_provider.get_tracer('user-code')
    agent = Agent(TestModel(), name='a', capabilities=[Instrumentation(telemetry.settings())])

    @agent.tool_plain
    def lookup() -> str:
        with tracer.start_as_current_span('user lookup'):
            return 'found'

    agent.run_sync('go')

    assert ('user lookup', 'execute_tool lookup') in telemetry.tree()
