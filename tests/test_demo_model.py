"""`agents demo --model` with a model it cannot use says so in one line, naming the model, before starting anything."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sysconfig
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

AGENTS = os.path.join(sysconfig.get_path('scripts'), 'agents')


@pytest.mark.parametrize(
    ('model', 'why'),
    [
        ('nosuch:model', "Unknown model provider 'nosuch' in 'nosuch:model'"),
        ('gpt-5', 'use the "<provider>:<model>" format'),
        ('openai:gpt-5.2', 'No API key for OpenAI: set the `OPENAI_API_KEY` environment variable'),
    ],
)
def test_a_model_the_demo_cannot_use_is_one_line_naming_it(model: str, why: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith('_API_KEY')}
    done = subprocess.run(
        [AGENTS, 'demo', 'approve', '--model', model],
        cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done
    assert done.stdout == ''  # nothing started: no dev server, no run
    assert done.stderr.splitlines() == [done.stderr.strip()], done.stderr
    assert done.stderr.startswith(f'agents: --model {model!r} cannot be used: '), done.stderr
    assert why in done.stderr


class _NoSuchModel(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint that knows no model: OpenAI's own 404 reply to every request."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get('content-length', 0)))
        error = {'message': 'The model `gpt-nope` does not exist.', 'type': 'invalid_request_error', 'code': None}
        body = json.dumps({'error': error}).encode()
        self.send_response(404)
        self.send_header('content-type', 'application/json')
        self.send_header('content-length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def no_such_model() -> Iterator[str]:
    """The base URL of an OpenAI-compatible server (in a thread of the test) that answers every model with a 404."""
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _NoSuchModel)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f'http://127.0.0.1:{server.server_address[1]}/v1'
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_a_model_the_provider_refuses_ends_the_demo_with_one_line_and_no_traceback(
    no_such_model: str, tmp_path: Path
) -> None:
    env = {**os.environ, 'OPENAI_BASE_URL': no_such_model, 'OPENAI_API_KEY': 'sk-test'}
    done = subprocess.run(
        [AGENTS, 'demo', 'approve', '--model', 'openai:gpt-nope'],
        cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done
    assert done.stderr.splitlines() == [done.stderr.strip()], done.stderr  # no worker traceback
    assert done.stderr.startswith('agents: The run failed: ModelHTTPError: status_code: 404, model_name: gpt-nope')
