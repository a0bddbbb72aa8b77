"""`agents demo --model` with a model it cannot use says so in one line, naming the model, before starting anything."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sysconfig
import threading
from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from ._processes import popen

AGENTS = os.path.join(sysconfig.get_path('scripts'), 'agents')

UNUSABLE = {
    'nosuch:model': "Unknown model provider 'nosuch' in 'nosuch:model'",
    'gpt-5': 'use the "<provider>:<model>" format',
    'openai:gpt-5.2': 'No API key for OpenAI: set the `OPENAI_API_KEY` environment variable',
}
"""Models the demo cannot use, and what its error says of each."""
REFUSED = 'openai:gpt-nope'
"""A model the provider (`no_such_model`) answers 404."""


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


@pytest.fixture(scope='module')
def no_such_model() -> Iterator[str]:
    """The base URL of an OpenAI-compatible server (in a thread of the test) that answers every model with a 404."""
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _NoSuchModel)
    # Polled often, so shutting it down takes milliseconds rather than the default half second.
    thread = threading.Thread(target=server.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True)
    thread.start()
    try:
        yield f'http://127.0.0.1:{server.server_address[1]}/v1'
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture(scope='module')
def demos(no_such_model: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, subprocess.Popen[str]]]:
    """`agents demo approve --model MODEL` for each model of `UNUSABLE` and for `REFUSED`, all started at once.

    Each spends a second or more of CPU importing the SDK: started together, they share the cores instead of taking
    turns, and each test reads the one it checks. Whatever still runs when the module ends is killed, with its children.
    """
    without_keys = {k: v for k, v in os.environ.items() if not k.endswith('_API_KEY')}
    refusing = {**os.environ, 'OPENAI_BASE_URL': no_such_model, 'OPENAI_API_KEY': 'sk-test'}
    with ExitStack() as stack:
        started: dict[str, subprocess.Popen[str]] = {}
        for model in [*UNUSABLE, REFUSED]:
            env = refusing if model == REFUSED else without_keys
            demo = popen(
                [AGENTS, 'demo', 'approve', '--model', model],
                cwd=tmp_path_factory.mktemp('demo'), env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            )  # fmt: skip
            started[model] = stack.enter_context(demo)
        yield started


def ended(process: subprocess.Popen[str], timeout: float) -> subprocess.CompletedProcess[str]:
    out, err = process.communicate(timeout=timeout)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


@pytest.mark.parametrize(('model', 'why'), UNUSABLE.items())
def test_a_model_the_demo_cannot_use_is_one_line_naming_it(
    model: str, why: str, demos: dict[str, subprocess.Popen[str]]
) -> None:
    done = ended(demos[model], timeout=60)
    assert done.returncode == 1, done
    assert done.stdout == ''  # nothing started: no dev server, no run
    assert done.stderr.splitlines() == [done.stderr.strip()], done.stderr
    assert done.stderr.startswith(f'agents: --model {model!r} cannot be used: '), done.stderr
    assert why in done.stderr


def test_a_model_the_provider_refuses_ends_the_demo_with_one_line_and_no_traceback(
    demos: dict[str, subprocess.Popen[str]],
) -> None:
    done = ended(demos[REFUSED], timeout=120)
    assert done.returncode == 1, done
    assert done.stderr.splitlines() == [done.stderr.strip()], done.stderr  # no worker traceback
    assert done.stderr.startswith('agents: The run failed: ModelHTTPError: status_code: 404, model_name: gpt-nope')
