"""Serving AG-UI over HTTP: `AGUIApp`, `Agent.to_ag_ui()` and `handle_ag_ui_request` in a Starlette route."""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from agent.ui import StateDeps
from agent.ui.ag_ui import AGUIApp, handle_ag_ui_request

from ._ag_ui import Counter, calling_agent, client_check, counter_agent, run_input


def _post(app: Any, path: str, body: bytes | str, **headers: str) -> Any:
    with TestClient(app) as client:
        return client.post(path, content=body, headers={'content-type': 'application/json', **headers})


def _event_types(body: str) -> list[str]:
    return [json.loads(line[len('data: ') :])['type'] for line in body.splitlines() if line.startswith('data: ')]


def _ping_agent() -> Any:
    agent = calling_agent('ping', answer='Got')

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    return agent


def test_an_ag_ui_app_streams_a_run_as_server_sent_events():
    app = AGUIApp(_ping_agent())

    response = _post(app, '/', run_input().model_dump_json(by_alias=True), accept='text/event-stream')

    assert response.status_code == 200
    assert response.headers['content-type'].startswith('text/event-stream')
    assert _event_types(response.text)[0] == 'RUN_STARTED'
    assert _event_types(response.text)[-1] == 'RUN_FINISHED'
    client = client_check(response.text)
    assert client['error'] is None
    assert client['agent']['messages'][-1]['content'] == 'Got pong'


def test_to_ag_ui_serves_the_agent_at_the_given_path():
    app = _ping_agent().to_ag_ui(path='/agent')

    response = _post(app, '/agent', run_input().model_dump_json(by_alias=True))
    missing = _post(app, '/', run_input().model_dump_json(by_alias=True))

    assert isinstance(app, AGUIApp)
    assert response.status_code == 200
    assert 'RUN_FINISHED' in _event_types(response.text)
    assert missing.status_code == 404


def test_a_malformed_body_gets_a_422_saying_what_is_wrong():
    app = AGUIApp(_ping_agent())

    not_json = _post(app, '/', b'{not json')
    missing_fields = _post(app, '/', json.dumps({'threadId': 't'}))
    dangling_tool = _post(
        app,
        '/',
        json.dumps(
            {
                'threadId': 't',
                'runId': 'r',
                'messages': [{'id': 'm', 'role': 'tool', 'toolCallId': 'c', 'content': 'x'}],
            }
        ),
    )

    assert [r.status_code for r in (not_json, missing_fields, dangling_tool)] == [422, 422, 422]
    assert {tuple(e['loc']) for e in missing_fields.json()} == {('runId',), ('messages',)}
    [error] = dangling_tool.json()
    assert error['loc'] == ['messages', 0]
    assert 'no earlier assistant message made' in error['msg']


def test_handle_ag_ui_request_serves_a_starlette_route_with_per_request_state():
    agent = counter_agent()
    shared_deps = StateDeps(Counter())

    async def run_agent(request: Request) -> Response:
        return await handle_ag_ui_request(agent, request, deps=shared_deps)

    app = Starlette(routes=[Route('/agent', run_agent, methods=['POST'])])

    first = _post(app, '/agent', run_input(state={'count': 10}).model_dump_json(by_alias=True))
    second = _post(app, '/agent', run_input(state={'count': 20}).model_dump_json(by_alias=True))

    assert client_check(first.text)['agent']['state'] == {'count': 11}
    assert client_check(second.text)['agent']['state'] == {'count': 21}
    # Each request got its own copy of the deps: the shared object never held a request's state.
    assert shared_deps.state == Counter(count=0)
