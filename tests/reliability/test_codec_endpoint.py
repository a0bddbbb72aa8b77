"""The codec endpoint cannot be knocked over: bombs are refused, only configured origins and tokens get in.

Every request here is real HTTP against a server on a loopback port: in the test process (so its memory can be
measured), as `python -m deploy.codec_server`, and as the one the embedded dev server starts for its Web UI.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import selectors
import subprocess
import sys
import tracemalloc
import uuid
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2
import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from deploy.codec_server import DEFAULT_MAX_INFLATED_PAYLOAD_BYTES, CodecServer
from tests._processes import popen
from tests.durable.test_cli_contract import temporal
from worker import start_dev_server, web_ui_url

ROOT = Path(__file__).parents[2]
GIB = 1 << 30
PLAIN = base64.b64encode(b'json/plain').decode()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def deflated(data: bytes) -> dict[str, Any]:
    """A `json/zlib` payload of `data`."""
    return {'metadata': {'encoding': b64(b'json/zlib')}, 'data': b64(zlib.compress(data))}


@pytest.fixture(scope='module')
def bomb() -> dict[str, Any]:
    """A `json/zlib` payload of about 1 MB that inflates to 1 GiB of zeros."""
    deflater = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    data = b''.join(deflater.compress(chunk) for _ in range(GIB // len(chunk))) + deflater.flush()
    assert len(data) < 1_100_000
    return {'metadata': {'encoding': b64(b'json/zlib')}, 'data': b64(data)}


@contextmanager
def codec(**options: Any) -> Iterator[CodecServer]:
    server = CodecServer(**options).start()
    try:
        yield server
    finally:
        server.close()


def post_raw(url: str, headers: dict[str, str], body: bytes = b'') -> tuple[int, dict[str, Any]]:
    """POST to `url` with exactly `headers` (no Content-Length unless given), returning status and JSON body."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or '', parts.port, timeout=5)
    try:
        connection.putrequest('POST', parts.path)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders(body or None)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_a_zlib_bomb_gets_413_without_being_inflated_in_memory(bomb: dict[str, Any]) -> None:
    body = json.dumps({'payloads': [bomb]}).encode()
    with codec() as server:
        tracemalloc.start()
        try:
            before, _ = tracemalloc.get_traced_memory()
            response = httpx2.post(f'{server.url}/decode', content=body, timeout=60)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert response.status_code == 413
    assert response.text.count('\n') == 0
    assert response.json() == {
        'error': f'Payload 0 inflates to more than {DEFAULT_MAX_INFLATED_PAYLOAD_BYTES} bytes, over the limit for '
        'one payload (--max-inflated-payload-bytes)'
    }
    # The request body is read and parsed (a few MB); the payload is inflated up to the limit and no further.
    assert peak - before < 64 << 20


def test_payloads_that_together_inflate_past_the_request_limit_are_refused() -> None:
    payload = deflated(b'"' + b'x' * 898 + b'"')
    with codec(max_inflated_payload_bytes=1000, max_inflated_request_bytes=2500) as server:
        two = httpx2.post(f'{server.url}/decode', json={'payloads': [payload] * 2})
        three = httpx2.post(f'{server.url}/decode', json={'payloads': [payload] * 3})
    assert two.status_code == 200
    assert [p['metadata']['encoding'] for p in two.json()['payloads']] == [PLAIN, PLAIN]
    assert three.status_code == 413
    assert three.json() == {
        'error': 'The payloads inflate to more than 2500 bytes together, over the limit for one request '
        '(--max-inflated-request-bytes)'
    }


def test_a_body_over_the_cap_or_without_a_valid_length_is_refused_cleanly() -> None:
    with codec(max_body_bytes=100) as server:
        url = f'{server.url}/decode'
        over = httpx2.post(url, content=b' ' * 101)
        assert over.status_code == 413
        assert over.json() == {'error': 'Request body of 101 bytes is over the limit of 100 bytes (--max-body-bytes)'}
        assert post_raw(url, {}) == (411, {'error': 'Send the body with a Content-Length of at most 100 bytes'})
        assert post_raw(url, {'Transfer-Encoding': 'chunked'}, b'0\r\n\r\n')[0] == 411
        for bad in ('many', '-5', '1e3'):
            assert post_raw(url, {'Content-Length': bad}) == (
                400,
                {'error': f'Content-Length {bad!r} is not a number of bytes'},
            )
        # The endpoint still answers after all that.
        assert httpx2.post(url, json={'payloads': []}).json() == {'payloads': []}


def test_cors_answers_only_configured_origins_and_never_allows_credentials() -> None:
    with codec() as server:
        url = f'{server.url}/decode'
        stranger = httpx2.post(url, json={'payloads': []}, headers={'Origin': 'https://evil.example'})
        stranger_preflight = httpx2.options(url, headers={'Origin': 'https://evil.example'})
        for response in (stranger, stranger_preflight):
            assert 'access-control-allow-origin' not in response.headers
            assert 'access-control-allow-credentials' not in response.headers
        for origin in ('http://localhost:8233', 'http://127.0.0.1:8233'):
            local_ui = httpx2.post(url, json={'payloads': []}, headers={'Origin': origin})
            assert local_ui.headers['access-control-allow-origin'] == origin
            assert local_ui.headers['vary'] == 'Origin'
            assert 'access-control-allow-credentials' not in local_ui.headers
    with codec(allowed_origins=['https://ui.example.com/']) as server:
        listed = httpx2.options(f'{server.url}/decode', headers={'Origin': 'https://ui.example.com'})
        local_ui = httpx2.options(f'{server.url}/decode', headers={'Origin': 'http://localhost:8233'})
        assert listed.headers['access-control-allow-origin'] == 'https://ui.example.com'
        assert 'Authorization' in listed.headers['access-control-allow-headers']
        assert 'access-control-allow-origin' not in local_ui.headers
    with codec(allowed_origins=['*']) as server:
        anyone = httpx2.post(f'{server.url}/decode', json={'payloads': []}, headers={'Origin': 'https://a.example'})
        assert anyone.headers['access-control-allow-origin'] == '*'
        assert 'access-control-allow-credentials' not in anyone.headers
    with pytest.raises(ValueError, match=r"'localhost:8233' is not an origin"):
        CodecServer(allowed_origins=['localhost:8233'])


def test_a_configured_token_is_required_for_decode_and_encode() -> None:
    with codec(token='s3cret') as server:
        for path in ('/decode', '/encode'):
            url = f'{server.url}{path}'
            for headers in ({}, {'Authorization': 'Bearer wrong'}, {'Authorization': 's3cret'}):
                refused = httpx2.post(url, json={'payloads': []}, headers=headers)
                assert refused.status_code == 401
                assert refused.headers['www-authenticate'] == 'Bearer'
                assert refused.json() == {'error': 'Send the endpoint\'s token as "Authorization: Bearer <token>"'}
            allowed = httpx2.post(url, json={'payloads': []}, headers={'Authorization': 'Bearer s3cret'})
            assert allowed.status_code == 200
        # Browsers send the preflight without credentials, so it must pass without the token.
        preflight = httpx2.options(f'{server.url}/decode', headers={'Origin': 'http://localhost:8233'})
        assert preflight.status_code == 200
        assert preflight.headers['access-control-allow-origin'] == 'http://localhost:8233'


@pytest.mark.asyncio(loop_scope='session')
async def test_the_temporal_cli_sends_the_token_with_codec_auth(
    temporal_env: WorkflowEnvironment, client: Client, task_queue: str
) -> None:
    workflow_id = f'codec-token-{uuid.uuid4()}'
    handle = await client.start_workflow('NotServed', 'hello', id=workflow_id, task_queue=task_queue)
    try:
        with codec(token='t0ken') as server:
            # The CLI sends every payload it shows to the endpoint and fails if one is refused.
            shown = await temporal(
                temporal_env,
                *('workflow', 'show', '--workflow-id', workflow_id, '--output', 'json'),
                *('--codec-endpoint', server.url, '--codec-auth', 'Bearer t0ken'),
            )
    finally:
        await handle.terminate()
    [started] = [e for e in json.loads(shown)['events'] if 'workflowExecutionStartedEventAttributes' in e]
    [payload] = started['workflowExecutionStartedEventAttributes']['input']['payloads']
    assert json.loads(base64.b64decode(payload['data'])) == 'hello'


@contextmanager
def codec_process(*args: str, env: dict[str, str]) -> Iterator[str]:
    """`python -m deploy.codec_server` on a free port; yields its URL."""
    command = [sys.executable, '-m', 'deploy.codec_server', '--port', '0', *args]
    with popen(command, cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.PIPE) as process:
        assert process.stdout is not None
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(process.stdout, selectors.EVENT_READ)
                assert selector.select(timeout=10), 'the codec endpoint did not start within 10 s'
            yield process.stdout.readline().removeprefix('Codec endpoint on ').strip()
        finally:
            process.terminate()
            process.wait(timeout=5)


def test_the_command_line_takes_limits_origins_and_the_token_from_the_environment() -> None:
    options = ('--allow-origin', 'https://ui.example.com', '--allow-origin', 'https://ops.example.com')
    limits = ('--max-inflated-payload-bytes', '1000', '--max-body-bytes', '5000')
    with codec_process(*options, *limits, env={'CODEC_SERVER_TOKEN': 't0ken'}) as url:
        headers = {'Authorization': 'Bearer t0ken', 'Origin': 'https://ops.example.com'}
        small = httpx2.post(f'{url}/decode', json={'payloads': [deflated(b'1' * 1000)]}, headers=headers)
        large = httpx2.post(f'{url}/decode', json={'payloads': [deflated(b'1' * 1001)]}, headers=headers)
        too_long = httpx2.post(f'{url}/decode', content=b' ' * 5001, headers=headers)
        without_token = httpx2.post(f'{url}/decode', json={'payloads': []})
    assert small.status_code == 200
    assert small.headers['access-control-allow-origin'] == 'https://ops.example.com'
    assert large.status_code == 413
    assert too_long.status_code == 413
    assert without_token.status_code == 401


async def test_the_embedded_dev_server_endpoint_has_the_same_limits_and_allows_only_its_web_ui(
    bomb: dict[str, Any],
) -> None:
    env = await start_dev_server(ui=True)
    try:
        ui = web_ui_url(env)
        assert ui is not None
        local = ui.replace('127.0.0.1', 'localhost')
        async with httpx2.AsyncClient(timeout=60) as http:
            endpoint = (await http.get(f'{ui}/api/v1/settings')).json()['Codec']['Endpoint']
            bombed = await http.post(f'{endpoint}/decode', json={'payloads': [bomb]}, headers={'Origin': ui})
            local_ui = await http.options(f'{endpoint}/decode', headers={'Origin': local})
            other = await http.options(f'{endpoint}/decode', headers={'Origin': 'http://localhost:8233'})
    finally:
        await env.shutdown()
    assert bombed.status_code == 413
    assert bombed.headers['access-control-allow-origin'] == ui
    assert local_ui.headers['access-control-allow-origin'] == local
    assert 'access-control-allow-origin' not in other.headers
