"""The AI SDK v6 approval round trip over HTTP, and request errors, through `VercelAIAdapter.dispatch_request`."""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from agent import Agent
from agent.tools import ToolApproved, ToolDenied
from agent.ui.vercel_ai import VercelAIAdapter
from tests.ui._node import run_node
from tests.ui._vercel_ai_agents import chat_body, user_message, weather_agent


def _client(agent: Agent[None, Any]) -> TestClient:
    async def chat(request: Request) -> Response:
        return await VercelAIAdapter.dispatch_request(request, agent=agent)

    return TestClient(Starlette(routes=[Route('/api/chat', chat, methods=['POST'])]))


def _chunks(body: str) -> list[dict[str, Any]]:
    events = [event for event in body.split('\n\n') if event]
    assert events[-1] == 'data: [DONE]'
    return [json.loads(event.removeprefix('data: ')) for event in events[:-1]]


def _first_turn(client: TestClient) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Send the first message and return the assistant message the AI SDK rebuilt, and the chunks."""
    response = client.post('/api/chat', json=chat_body(user_message('Weather in Paris, then delete /tmp/x')))
    assert response.status_code == 200
    checked = run_node('vercel_ai_check.mjs', response.text)
    assert checked['invalid'] == []
    assert checked['errors'] == []
    return checked['message'], _chunks(response.text)


def _answer_approval(message: dict[str, Any], approved: bool, reason: str | None = None) -> dict[str, Any]:
    """What `addToolApprovalResponse` does to the assistant message on the client."""
    parts = [dict(part) for part in message['parts']]
    for part in parts:
        if part.get('state') == 'approval-requested':
            part['state'] = 'approval-responded'
            part['approval'] = {
                'id': part['approval']['id'],
                'approved': approved,
                **({'reason': reason} if reason else {}),
            }
    return {**message, 'parts': parts}


def test_tool_needing_approval_ends_the_stream_with_its_input_and_an_approval_request():
    message, chunks = _first_turn(_client(weather_agent()))

    delete_chunks = [chunk for chunk in chunks if chunk.get('toolCallId') == 'call_delete']
    assert [chunk['type'] for chunk in delete_chunks] == [
        'tool-input-start',
        'tool-input-delta',
        'tool-input-available',
        'tool-approval-request',
    ]
    assert delete_chunks[2]['input'] == {'path': '/tmp/x'}
    assert chunks[-1] == {'type': 'finish'}  # the function model gives no finish reason
    delete_part = next(part for part in message['parts'] if part['type'] == 'tool-delete')
    assert delete_part['state'] == 'approval-requested'
    assert delete_part['approval'] == {'id': 'call_delete'}


def test_approved_call_runs_when_the_client_sends_the_approval_back():
    client = _client(weather_agent())
    message, _ = _first_turn(client)

    body = chat_body(user_message('Weather in Paris, then delete /tmp/x'), _answer_approval(message, approved=True))
    response = client.post('/api/chat', json=body)

    assert response.status_code == 200
    continued = run_node('vercel_ai_check.mjs', json.dumps({'message': message, 'body': response.text}), 'continue')
    assert continued['invalid'] == []
    assert continued['errors'] == []
    final = continued['message']
    assert final['id'] == message['id'], 'the answer continues the same assistant message'
    delete_part = next(part for part in final['parts'] if part['type'] == 'tool-delete')
    assert delete_part['state'] == 'output-available'
    assert delete_part['output'] == 'deleted /tmp/x'
    texts = [part['text'] for part in final['parts'] if part['type'] == 'text']
    assert texts[-1] == 'Results: weather=sunny in Paris (success); delete=deleted /tmp/x (success)'


def test_denial_reason_reaches_the_model_as_the_tools_denied_result():
    client = _client(weather_agent())
    message, _ = _first_turn(client)

    denied = _answer_approval(message, approved=False, reason='Never delete files.')
    response = client.post('/api/chat', json=chat_body(user_message('Weather in Paris, then delete /tmp/x'), denied))

    chunks = _chunks(response.text)
    assert {'type': 'tool-output-denied', 'toolCallId': 'call_delete'} in chunks
    text = ''.join(chunk['delta'] for chunk in chunks if chunk['type'] == 'text-delta')
    assert text == 'Results: weather=sunny in Paris (success); delete=Never delete files. (denied)'
    continued = run_node('vercel_ai_check.mjs', json.dumps({'message': message, 'body': response.text}), 'continue')
    assert continued['errors'] == []
    delete_part = next(part for part in continued['message']['parts'] if part['type'] == 'tool-delete')
    assert delete_part['state'] == 'output-denied'


def test_adapter_reads_approvals_and_denials_from_approval_responded_parts():
    body = chat_body(
        user_message('go'),
        {
            'id': 'assistant-1',
            'role': 'assistant',
            'parts': [
                {
                    'type': 'tool-a',
                    'toolCallId': 'c1',
                    'state': 'approval-responded',
                    'input': {},
                    'approval': {'id': 'c1', 'approved': True},
                },
                {
                    'type': 'dynamic-tool',
                    'toolName': 'b',
                    'toolCallId': 'c2',
                    'state': 'approval-responded',
                    'input': {},
                    'approval': {'id': 'c2', 'approved': False, 'reason': 'no'},
                },
                {
                    'type': 'tool-c',
                    'toolCallId': 'c3',
                    'state': 'approval-responded',
                    'input': {},
                    'approval': {'id': 'c3', 'approved': False},
                },
                {
                    'type': 'tool-d',
                    'toolCallId': 'c4',
                    'state': 'approval-requested',
                    'input': {},
                    'approval': {'id': 'c4'},
                },
            ],
        },
        chat_id='chat-42',
    )
    adapter = VercelAIAdapter(weather_agent(), VercelAIAdapter.build_run_input(json.dumps(body).encode()))

    results = adapter.deferred_tool_results
    assert results is not None
    assert results.to_tool_call_results() == {
        'c1': ToolApproved(),
        'c2': ToolDenied('no'),
        'c3': ToolDenied(),
    }
    assert adapter.conversation_id == 'chat-42'


def test_v5_client_gets_no_approval_results():
    body = chat_body(
        user_message('go'),
        {
            'id': 'a',
            'role': 'assistant',
            'parts': [
                {
                    'type': 'tool-a',
                    'toolCallId': 'c1',
                    'state': 'approval-responded',
                    'input': {},
                    'approval': {'id': 'c1', 'approved': True},
                }
            ],
        },
    )
    adapter = VercelAIAdapter(
        weather_agent(), VercelAIAdapter.build_run_input(json.dumps(body).encode()), sdk_version=5
    )
    assert adapter.deferred_tool_results is None


def test_malformed_request_gets_422_with_the_validation_errors():
    client = _client(weather_agent())

    missing_id = client.post('/api/chat', json={'messages': [user_message('hi')], 'trigger': 'submit-message'})
    bad_part = client.post('/api/chat', json=chat_body({'id': 'u', 'role': 'user', 'parts': [{'type': 'bogus'}]}))
    non_bool_approval = client.post(
        '/api/chat',
        json=chat_body(
            {
                'id': 'a',
                'role': 'assistant',
                'parts': [
                    {
                        'type': 'tool-delete',
                        'toolCallId': 'c',
                        'state': 'approval-responded',
                        'input': {},
                        'approval': {'id': 'c', 'approved': 'true'},
                    }
                ],
            }
        ),
    )

    for response in (missing_id, bad_part, non_bool_approval):
        assert response.status_code == 422
        assert response.headers['content-type'] == 'application/json'
    assert [error['loc'] for error in missing_id.json()] == [['submit-message', 'id']]
    assert bad_part.json()[0]['type'] == 'invalid_ui_part'
    assert non_bool_approval.json()[0]['loc'][-1] == 'approved'


def test_response_is_an_sse_stream_with_the_ui_message_stream_header():
    response = _client(weather_agent()).post('/api/chat', json=chat_body(user_message('hi')))

    assert response.headers['x-vercel-ai-ui-message-stream'] == 'v1'
    assert response.headers['content-type'].startswith('text/event-stream')
    assert response.text.endswith('data: [DONE]\n\n')
