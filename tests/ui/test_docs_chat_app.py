"""The chat app of docs/chat.md serves both protocols as the page says, judged by the protocols' own clients."""

from __future__ import annotations

import json
from typing import Any

from starlette.testclient import TestClient

from tests._docs import blocks, page_path
from tests.ui._ag_ui import client_check, run_input
from tests.ui._node import run_node
from tests.ui._vercel_ai_agents import chat_body, user_message

CHAT = 'docs/chat.md'
OWN_FRONT_END = 'Put an agent behind your own chat front end'


def _page_app() -> Any:
    (block,) = blocks(CHAT, 'python', section=OWN_FRONT_END)
    assert 'VercelAIAdapter.dispatch_request' in block.source
    namespace: dict[str, Any] = {'__name__': 'chat'}
    exec(compile(block.source, f'{page_path(CHAT)}:{block.line}', 'exec'), namespace)
    return namespace['app']


def test_the_page_app_answers_the_ai_sdk_with_a_stream_its_client_rebuilds():
    with TestClient(_page_app()) as client:
        response = client.post('/api/chat', json=chat_body(user_message('Hello')))

    checked = run_node('vercel_ai_check.mjs', response.text)
    assert response.status_code == 200
    assert response.headers['x-vercel-ai-ui-message-stream'] == 'v1'
    assert checked['invalid'] == []
    assert checked['errors'] == []
    texts = [part['text'] for part in checked['message']['parts'] if part['type'] == 'text']
    assert texts == ['success (no tool calls)']


def test_the_page_app_answers_ag_ui_with_events_its_verifier_accepts():
    with TestClient(_page_app()) as client:
        response = client.post(
            '/ag-ui', content=run_input().model_dump_json(by_alias=True), headers={'accept': 'text/event-stream'}
        )

    checked = client_check(response.text)
    assert response.status_code == 200
    assert checked['error'] is None
    assert checked['agent']['messages'][-1]['content'] == 'success (no tool calls)'


def test_the_page_app_rejects_a_malformed_body_with_a_422():
    with TestClient(_page_app()) as client:
        response = client.post('/api/chat', content=json.dumps({'messages': 'not a list'}))

    assert response.status_code == 422
    assert 'messages' in response.text
