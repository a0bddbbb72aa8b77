"""`UIAdapter`: requests in, agent runs with the frontend's messages, tools, state and system prompt policy."""

from __future__ import annotations

import json
import warnings
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from agent import Agent, RunContext
from agent.messages import ModelMessage, ModelRequest, ModelResponse, SystemPromptPart, TextPart, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel
from agent.run import AgentRunResult
from agent.tools import DeferredToolRequests
from agent.ui import StateDeps, StateHandler

from ._recording import RecordingAdapter, RecordingInput


def _user(text: str) -> dict[str, Any]:
    return {'kind': 'request', 'parts': [{'part_kind': 'user-prompt', 'content': text}]}


def _reply(text: str) -> FunctionModel:
    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(text)])

    return FunctionModel(reply)


def _app(agent: Agent[Any, Any], **dispatch_kwargs: Any) -> TestClient:
    async def run(request: Request) -> Response:
        return await RecordingAdapter.dispatch_request(request, agent=agent, **dispatch_kwargs)

    return TestClient(Starlette(routes=[Route('/run', run, methods=['POST'])]))


async def _drain(stream: AsyncIterator[Any]) -> list[Any]:
    return [event async for event in stream]


# ----- requests -----


def test_dispatch_request_streams_the_protocol_events_as_server_sent_events() -> None:
    client = _app(Agent(_reply('Hello there')))

    response = client.post('/run', json={'messages': [_user('hi')]})

    assert response.status_code == 200
    assert response.headers['content-type'].startswith('text/event-stream')
    assert response.text.split('\n\n')[:3] == [
        'data: before_stream',
        'data: before_response',
        "data: text_start('Hello there', follows_text=False)",
    ]
    assert response.text.endswith("data: run_result('Hello there')\n\ndata: after_stream\n\n")


def test_dispatch_request_answers_a_malformed_body_with_422_and_the_validation_errors() -> None:
    client = _app(Agent(_reply('unused')))
    body = '{"messages": 5}'

    response = client.post('/run', content=body)

    assert response.status_code == 422
    assert response.headers['content-type'] == 'application/json'
    with pytest.raises(ValidationError) as expected:
        RecordingInput.model_validate_json(body)
    assert response.json() == json.loads(expected.value.json())
    assert response.json()[0]['loc'] == ['messages']


def test_dispatch_request_passes_run_arguments_and_adapter_options_through() -> None:
    seen: list[ModelMessage] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend(messages)
        return ModelResponse(parts=[TextPart('ok')])

    client = _app(Agent(FunctionModel(model)), manage_system_prompt='client', instructions='Answer in French.')
    system = {'part_kind': 'system-prompt', 'content': 'Be brief.'}
    body = {'messages': [{'kind': 'request', 'parts': [system, {'part_kind': 'user-prompt', 'content': 'hi'}]}]}

    with warnings.catch_warnings():
        warnings.simplefilter('error')
        response = client.post('/run', json=body)

    assert response.status_code == 200
    request = seen[0]
    assert isinstance(request, ModelRequest)
    assert [p.content for p in request.parts if isinstance(p, SystemPromptPart)] == ['Be brief.']
    assert request.instructions is not None
    assert 'Answer in French.' in request.instructions


async def test_from_request_decodes_the_body_and_keeps_the_accept_header_and_options() -> None:
    adapters: list[RecordingAdapter] = []

    async def endpoint(request: Request) -> Response:
        adapters.append(
            await RecordingAdapter.from_request(
                request, agent=Agent('test'), allowed_file_url_schemes=frozenset({'https'})
            )
        )
        return Response('ok')

    client = TestClient(Starlette(routes=[Route('/run', endpoint, methods=['POST'])]))
    client.post('/run', json={'messages': [_user('hi')], 'thread_id': 't-1'}, headers={'accept': 'text/plain'})

    adapter = adapters[0]
    assert adapter.accept == 'text/plain'
    assert adapter.run_input.thread_id == 't-1'
    assert adapter.allowed_file_url_schemes == frozenset({'https'})
    assert adapter.manage_system_prompt == 'server'


def test_dump_messages_is_not_implemented_by_the_base_class() -> None:
    with pytest.raises(NotImplementedError):
        RecordingAdapter.dump_messages([])


# ----- state -----


class Counter(BaseModel):
    count: int = 0
    label: str = 'none'


def _state_agent(seen: list[Any]) -> Agent[Any, str]:
    async def call_tool(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('read_state', {})])
        return ModelResponse(parts=[TextPart('done')])

    agent: Agent[Any, str] = Agent(FunctionModel(call_tool))

    @agent.tool
    def read_state(ctx: RunContext[Any]) -> str:
        seen.append(ctx.deps.state)
        return 'ok'

    return agent


async def test_frontend_state_is_validated_into_the_state_deps_model_and_seen_by_tools() -> None:
    seen: list[Any] = []
    deps = StateDeps(Counter())
    adapter = RecordingAdapter(_state_agent(seen), RecordingInput(messages=[_user('hi')], state={'count': '3'}))

    await _drain(adapter.run_stream(deps=deps))

    assert deps.state == Counter(count=3)  # the deps object itself was updated
    assert seen == [Counter(count=3)]


async def test_no_frontend_state_resets_the_state_model_to_its_defaults() -> None:
    deps = StateDeps(Counter(count=9, label='old'))
    adapter = RecordingAdapter(Agent(_reply('ok')), RecordingInput(messages=[_user('hi')]))

    await _drain(adapter.run_stream(deps=deps))

    assert deps.state == Counter()


def test_invalid_frontend_state_fails_when_the_run_is_set_up() -> None:
    adapter = RecordingAdapter(Agent(_reply('ok')), RecordingInput(messages=[_user('hi')], state={'count': 'many'}))

    with pytest.raises(ValidationError):
        adapter.run_stream_native(deps=StateDeps(Counter()))


async def test_a_state_handler_without_a_model_receives_the_raw_state() -> None:
    @dataclass
    class RawState:
        state: dict[str, Any]

    deps = RawState({})
    assert isinstance(deps, StateHandler)
    adapter = RecordingAdapter(Agent(_reply('ok')), RecordingInput(messages=[_user('hi')], state={'a': [1, 2]}))

    await _drain(adapter.run_stream(deps=deps))

    assert deps.state == {'a': [1, 2]}


def test_state_with_deps_that_are_not_a_state_handler_is_ignored_with_a_warning() -> None:
    adapter = RecordingAdapter(Agent(_reply('ok')), RecordingInput(messages=[_user('hi')], state={'count': 1}))

    with pytest.warns(
        UserWarning, match='`deps` \\(of type `dict`\\) does not implement the `StateHandler`'
    ) as records:
        adapter.run_stream_native(deps={'count': 0})

    assert 'StateDeps[...]' in str(records[0].message)
    assert records[0].filename == __file__


def test_no_state_and_plain_deps_do_not_warn() -> None:
    adapter = RecordingAdapter(Agent(_reply('ok')), RecordingInput(messages=[_user('hi')], state={}))

    with warnings.catch_warnings():
        warnings.simplefilter('error')
        adapter.run_stream_native(deps={'count': 0})


def test_state_deps_is_a_state_handler_but_a_plain_class_is_not() -> None:
    class NotADataclass:
        state: Any = None

    assert isinstance(StateDeps(Counter()), StateHandler)
    assert not isinstance(NotADataclass(), StateHandler)


# ----- frontend tools -----


async def test_frontend_tools_are_offered_and_a_call_ends_the_run_with_deferred_tool_requests() -> None:
    infos: list[AgentInfo] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        infos.append(info)
        return ModelResponse(parts=[ToolCallPart('confirm', {'question': 'Sure?'}, tool_call_id='f1')])

    results: list[AgentRunResult[Any]] = []

    async def on_complete(result: AgentRunResult[Any]) -> None:
        results.append(result)

    adapter = RecordingAdapter(
        Agent(FunctionModel(model)), RecordingInput(messages=[_user('hi')], frontend_tools=['confirm'])
    )
    await _drain(adapter.run_stream(on_complete=on_complete))

    assert [t.name for t in infos[0].function_tools] == ['confirm']
    assert infos[0].allow_text_output  # the agent's own `str` output is still allowed
    output = results[0].output
    assert isinstance(output, DeferredToolRequests)
    assert [(c.tool_name, c.tool_call_id) for c in output.calls] == [('confirm', 'f1')]


async def test_frontend_tools_keep_a_given_output_type_next_to_deferred_tool_requests() -> None:
    class Answer(BaseModel):
        text: str

    infos: list[AgentInfo] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        infos.append(info)
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {'text': 'yes'})])

    results: list[AgentRunResult[Any]] = []

    async def on_complete(result: AgentRunResult[Any]) -> None:
        results.append(result)

    adapter = RecordingAdapter(
        Agent(FunctionModel(model)), RecordingInput(messages=[_user('hi')], frontend_tools=['confirm'])
    )
    await _drain(adapter.run_stream(output_type=Answer, on_complete=on_complete))

    assert not infos[0].allow_text_output
    assert results[0].output == Answer(text='yes')


# ----- system prompt ownership -----


def _prompt_recorder(seen: list[list[str]]) -> FunctionModel:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(
            [
                p.content
                for m in messages
                if isinstance(m, ModelRequest)
                for p in m.parts
                if isinstance(p, SystemPromptPart)
            ]
        )
        return ModelResponse(parts=[TextPart('ok')])

    return FunctionModel(model)


def _client_prompt_input() -> RecordingInput:
    system = {'part_kind': 'system-prompt', 'content': 'Client rules'}
    history = [
        {'kind': 'request', 'parts': [system, {'part_kind': 'user-prompt', 'content': 'hi'}]},
        {'kind': 'response', 'parts': [{'part_kind': 'text', 'content': 'hello'}]},
        _user('and now?'),
    ]
    return RecordingInput(messages=history)


async def test_server_mode_sends_the_agent_system_prompt_instead_of_the_client_one() -> None:
    seen: list[list[str]] = []
    adapter = RecordingAdapter(Agent(_prompt_recorder(seen), system_prompt='Server rules'), _client_prompt_input())

    with pytest.warns(UserWarning, match='manage_system_prompt'):
        await _drain(adapter.run_stream())

    assert seen == [['Server rules']]


async def test_client_mode_keeps_the_client_system_prompt_and_does_not_add_the_agent_one() -> None:
    seen: list[list[str]] = []
    adapter = RecordingAdapter(
        Agent(_prompt_recorder(seen), system_prompt='Server rules'),
        _client_prompt_input(),
        manage_system_prompt='client',
    )

    await _drain(adapter.run_stream())

    assert seen == [['Client rules']]


async def test_client_mode_without_a_client_system_prompt_sends_none() -> None:
    seen: list[list[str]] = []
    history = [_user('hi'), {'kind': 'response', 'parts': [{'part_kind': 'text', 'content': 'hello'}]}, _user('more')]
    adapter = RecordingAdapter(
        Agent(_prompt_recorder(seen), system_prompt='Server rules'),
        RecordingInput(messages=history),
        manage_system_prompt='client',
    )

    await _drain(adapter.run_stream())

    assert seen == [[]]


# ----- conversation id and deferred results -----


async def test_the_run_input_conversation_id_is_the_run_conversation_id() -> None:
    results: list[AgentRunResult[Any]] = []

    async def on_complete(result: AgentRunResult[Any]) -> None:
        results.append(result)

    adapter = RecordingAdapter(Agent(_reply('ok')), RecordingInput(messages=[_user('hi')], thread_id='thread-7'))
    await _drain(adapter.run_stream(on_complete=on_complete))
    await _drain(adapter.run_stream(conversation_id='explicit-1', on_complete=on_complete))

    assert [r.conversation_id for r in results] == ['thread-7', 'explicit-1']


async def test_approvals_from_the_run_input_resume_the_trailing_tool_call() -> None:
    ran: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart('deleted')])

    agent = Agent(FunctionModel(model))

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        ran.append(path)
        return 'ok'

    call = {'part_kind': 'tool-call', 'tool_name': 'delete_file', 'args': {'path': 'a.txt'}, 'tool_call_id': 'c1'}
    run_input = RecordingInput(
        messages=[_user('delete a.txt'), {'kind': 'response', 'parts': [call]}], approvals={'c1': True}
    )
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        events = await _drain(RecordingAdapter(agent, run_input).run_stream())

    assert ran == ['a.txt']
    assert "function_tool_result(delete_file, 'ok', success)" in events
    assert events[-2] == "run_result('deleted')"


def test_each_stream_method_builds_a_fresh_event_stream() -> None:
    adapter = RecordingAdapter(Agent(_reply('ok')), RecordingInput())

    assert adapter.build_event_stream() is not adapter.build_event_stream()
