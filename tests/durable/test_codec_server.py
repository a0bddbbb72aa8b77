"""The codec endpoint that shows compressed activity payloads as JSON in the Web UI and the `temporal` CLI."""

from __future__ import annotations

import base64
import json
import uuid
import zlib
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from agent import Agent
from agent.messages import ToolCallPart
from deploy.codec_server import CodecServer
from worker import build_worker
from workflows import AgentRunInput, AgentWorkflow

from .test_agent_workflow import scripted
from .test_cli_contract import temporal

LONG_RESULT = ' '.join(f'line {i}: the quarterly figures were within range' for i in range(60))


@pytest.fixture
def codec() -> Iterator[CodecServer]:
    server = CodecServer().start()
    try:
        yield server
    finally:
        server.close()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_decode_inflates_compressed_payloads_and_passes_others_through(codec: CodecServer) -> None:
    document = {'result': LONG_RESULT}
    compressed = {
        'metadata': {'encoding': b64(b'json/zlib')},
        'data': b64(zlib.compress(json.dumps(document).encode())),
    }
    plain = {'metadata': {'encoding': b64(b'json/plain')}, 'data': b64(b'"hello"')}
    response = httpx2.post(
        f'{codec.url}/decode', json={'payloads': [compressed, plain]}, headers={'Origin': 'http://localhost:8233'}
    )
    assert response.status_code == 200
    assert response.headers['access-control-allow-origin'] == 'http://localhost:8233'
    first, second = response.json()['payloads']
    assert base64.b64decode(first['metadata']['encoding']) == b'json/plain'
    assert json.loads(base64.b64decode(first['data'])) == document
    assert second == plain


def test_the_browser_preflight_is_answered_with_cors_headers(codec: CodecServer) -> None:
    response = httpx2.options(f'{codec.url}/decode', headers={'Origin': 'http://localhost:8233'})
    assert response.status_code == 200
    assert response.headers['access-control-allow-origin'] == 'http://localhost:8233'
    assert 'X-Namespace' in response.headers['access-control-allow-headers']


def test_bad_requests_say_what_is_wrong(codec: CodecServer) -> None:
    wrong_path = httpx2.post(f'{codec.url}/inflate', json={'payloads': []})
    assert wrong_path.status_code == 404
    assert 'use /decode or /encode' in wrong_path.json()['error']
    not_payloads = httpx2.post(f'{codec.url}/decode', json={'items': []})
    assert not_payloads.status_code == 400
    assert '{"payloads": [...]}' in not_payloads.json()['error']
    corrupt = {'metadata': {'encoding': b64(b'json/zlib')}, 'data': b64(b'not deflated')}
    broken = httpx2.post(f'{codec.url}/decode', json={'payloads': [corrupt]})
    assert broken.status_code == 400
    assert 'Payload 0 says json/zlib but its data does not inflate' in broken.json()['error']


report_agent = Agent(scripted(ToolCallPart('report', {}, 'rep-1')), name='report_agent')


@report_agent.tool_plain
def report() -> str:
    """Write the report."""
    return LONG_RESULT


@pytest.mark.asyncio(loop_scope='session')
async def test_the_temporal_cli_shows_a_compressed_tool_result_through_the_endpoint(
    temporal_env: WorkflowEnvironment, client: Client, task_queue: str, codec: CodecServer
) -> None:
    workflow_id = f'codec-{uuid.uuid4()}'
    async with build_worker(client, {'report_agent': report_agent}, task_queue=task_queue):
        await client.execute_workflow(
            AgentWorkflow.run, AgentRunInput(agent='report_agent', prompt='go'), id=workflow_id, task_queue=task_queue
        )
    raw = await temporal(temporal_env, 'workflow', 'show', '--workflow-id', workflow_id, '--output', 'json')
    decoded = await temporal(
        temporal_env,
        'workflow',
        'show',
        '--workflow-id',
        workflow_id,
        '--output',
        'json',
        '--codec-endpoint',
        codec.url,
    )
    raw_payload, decoded_payload = tool_result_payload(raw), tool_result_payload(decoded)
    # Stored deflated; through the endpoint the CLI shows the same result as plain JSON.
    assert base64.b64decode(raw_payload['metadata']['encoding']) == b'json/zlib'
    assert base64.b64decode(decoded_payload['metadata']['encoding']) == b'json/plain'
    assert json.loads(base64.b64decode(decoded_payload['data']))['result'] == LONG_RESULT


def tool_result_payload(shown: str) -> dict[str, Any]:
    """The payload of the tool activity's result in `temporal workflow show --output json`."""
    events = json.loads(shown)['events']
    names = {
        e['eventId']: e['activityTaskScheduledEventAttributes']['activityType']['name']
        for e in events
        if 'activityTaskScheduledEventAttributes' in e
    }
    [payload] = [
        e['activityTaskCompletedEventAttributes']['result']['payloads'][0]
        for e in events
        if 'activityTaskCompletedEventAttributes' in e
        and names[e['activityTaskCompletedEventAttributes']['scheduledEventId']].endswith('.call_tool')
    ]
    return payload
