"""Message content is left out of spans unless `include_content=True` asks for it."""

from __future__ import annotations

from agent import Agent, BinaryContent, ModelMessage, ModelResponse, TextPart, ToolCallPart
from agent.capabilities import Instrumentation
from agent.models.function import AgentInfo, FunctionModel

from ._otel import Telemetry, attrs, content_keys, json_attr


def _model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse([ToolCallPart('secret_lookup', {'name': 'alice'}, tool_call_id='c1')])
    return ModelResponse([TextPart('Alice lives at 1 Main St')], finish_reason='stop')


def _agent(telemetry: Telemetry, **settings: object) -> Agent[None, str]:
    agent = Agent(
        FunctionModel(_model, model_name='m'),
        name='private',
        instructions='Never share addresses.',
        capabilities=[Instrumentation(telemetry.settings(**settings))],
    )

    @agent.tool_plain
    def secret_lookup(name: str) -> dict[str, str]:
        return {'address': '1 Main St'}

    return agent


def test_content_is_left_out_by_default(telemetry: Telemetry) -> None:
    _agent(telemetry).run_sync('Where does Alice live?')

    assert len(telemetry.spans()) == 4
    assert content_keys(telemetry.spans()) == set()
    everything = ' '.join(str(value) for span in telemetry.spans() for value in attrs(span).values())
    for secret in ('Alice', 'Main St', 'Never share'):
        assert secret not in everything


def test_include_content_records_messages_instructions_tool_io_and_output(telemetry: Telemetry) -> None:
    _agent(telemetry, include_content=True).run_sync('Where does Alice live?')

    chats = sorted((s for s in telemetry.spans() if s.name == 'chat m'), key=lambda s: s.start_time or 0)
    assert json_attr(chats[0], 'gen_ai.input.messages') == [
        {'role': 'user', 'parts': [{'type': 'text', 'content': 'Where does Alice live?'}]}
    ]
    assert json_attr(chats[0], 'gen_ai.output.messages') == [
        {
            'role': 'assistant',
            'parts': [{'type': 'tool_call', 'id': 'c1', 'name': 'secret_lookup', 'arguments': {'name': 'alice'}}],
        }
    ]
    assert json_attr(chats[0], 'gen_ai.system_instructions') == [{'type': 'text', 'content': 'Never share addresses.'}]
    assert json_attr(chats[1], 'gen_ai.input.messages')[-1] == {
        'role': 'user',
        'parts': [
            {'type': 'tool_call_response', 'id': 'c1', 'name': 'secret_lookup', 'result': {'address': '1 Main St'}}
        ],
    }
    assert json_attr(chats[1], 'gen_ai.output.messages') == [
        {
            'role': 'assistant',
            'parts': [{'type': 'text', 'content': 'Alice lives at 1 Main St'}],
            'finish_reason': 'stop',
        }
    ]

    tool = telemetry.span('execute_tool secret_lookup')
    assert json_attr(tool, 'gen_ai.tool.call.arguments') == {'name': 'alice'}
    assert json_attr(tool, 'gen_ai.tool.call.result') == {'address': '1 Main St'}
    assert attrs(telemetry.span('invoke_agent private'))['final_result'] == 'Alice lives at 1 Main St'


def test_version_6_puts_tool_results_in_tool_messages(telemetry: Telemetry) -> None:
    _agent(telemetry, include_content=True, version=6).run_sync('Where does Alice live?')

    last_chat = max((s for s in telemetry.spans() if s.name == 'chat m'), key=lambda s: s.start_time or 0)
    assert json_attr(last_chat, 'gen_ai.input.messages')[-1]['role'] == 'tool'


def test_binary_data_is_dropped_when_binary_content_is_not_wanted(telemetry: Telemetry) -> None:
    image = BinaryContent(b'\x89PNG-bytes', media_type='image/png')
    agent = Agent(
        FunctionModel(lambda messages, info: ModelResponse([TextPart('a cat')]), model_name='m'),
        capabilities=[Instrumentation(telemetry.settings(include_content=True, include_binary_content=False))],
    )

    agent.run_sync(['What is this?', image])

    message = json_attr(telemetry.span('chat m'), 'gen_ai.input.messages')[0]
    assert message['parts'] == [
        {'type': 'text', 'content': 'What is this?'},
        {'type': 'blob', 'mime_type': 'image/png', 'modality': 'image'},
    ]


def test_binary_data_is_kept_base64_by_default(telemetry: Telemetry) -> None:
    image = BinaryContent(b'\x89PNG-bytes', media_type='image/png')
    agent = Agent(
        FunctionModel(lambda messages, info: ModelResponse([TextPart('a cat')]), model_name='m'),
        capabilities=[Instrumentation(telemetry.settings(include_content=True))],
    )

    agent.run_sync(['What is this?', image])

    blob = json_attr(telemetry.span('chat m'), 'gen_ai.input.messages')[0]['parts'][1]
    assert blob['content'] == image.base64


def test_structured_output_is_recorded_as_json(telemetry: Telemetry) -> None:
    from pydantic import BaseModel

    class City(BaseModel):
        name: str

    from agent.models.test import TestModel

    agent = Agent(
        TestModel(custom_output_args={'name': 'Paris'}),
        name='cities',
        output_type=City,
        capabilities=[Instrumentation(telemetry.settings(include_content=True))],
    )

    agent.run_sync('A city?')

    assert attrs(telemetry.span('invoke_agent cities'))['final_result'] == '{"name":"Paris"}'
