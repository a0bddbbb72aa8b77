"""docs/observability.md's worker command works as written: `OTEL_*` variables and `--prometheus-address` need no code.

The command runs in a user's folder against the test server, with its OTLP endpoint pointed at a local HTTP server
that keeps what it is sent and its Prometheus address on a free port (and, so other tests' workers take none of its
tasks, a task queue of its own).
"""

from __future__ import annotations

import asyncio
import http.server
import re
import shlex
import signal
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from temporalio.client import Client

from tests._docs import blocks, commands
from tests._processes import started
from workflows.client import AgentClient

from ._cli_helpers import AGENTS, free_port, user_env, write_project

OBSERVABILITY = 'docs/observability.md'
TRACE_DURABLE_RUNS = 'Trace durable runs'


def observability_commands() -> list[str]:
    """The page's shell commands, continued lines joined."""
    found = blocks(OBSERVABILITY, 'bash')
    assert {block.section for block in found} == {TRACE_DURABLE_RUNS}
    return [command.replace('\\\n', ' ') for block in found for command in commands(block.source)]


@contextmanager
def collector() -> Iterator[tuple[str, dict[str, list[bytes]]]]:
    """An OTLP/HTTP endpoint on a free port that answers 200 and keeps each request's body by path."""
    received: dict[str, list[bytes]] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
            received.setdefault(self.path, []).append(body)
            self.send_response(200)
            self.send_header('Content-Type', 'application/x-protobuf')
            self.send_header('Content-Length', '0')
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f'http://127.0.0.1:{server.server_address[1]}', received
    finally:
        server.shutdown()
        server.server_close()


async def eventually(check: Callable[[], bool], what: str) -> None:
    for _ in range(200):  # bounded: batches are exported every 100 ms here, metrics every 200 ms
        if await asyncio.to_thread(check):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f'never saw {what}')


def scrape(address: str) -> str:
    try:
        with urllib.request.urlopen(f'http://{address}/metrics', timeout=5) as response:
            return response.read().decode()
    except (urllib.error.URLError, ConnectionError):
        return ''


def test_the_page_has_one_worker_command_configured_by_otel_variables() -> None:
    [command] = observability_commands()
    words = shlex.split(command)
    assert words[0].startswith('OTEL_EXPORTER_OTLP_ENDPOINT=')
    assert words[words.index('agents') :][:2] == ['agents', 'worker']
    assert '--prometheus-address' in words


@pytest.mark.asyncio(loop_scope='session')
async def test_the_worker_command_exports_spans_and_metrics_and_serves_prometheus(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    [command] = observability_commands()
    folder = write_project(tmp_path)
    agents_module = folder / 'myapp' / 'agents.py'
    agents_module.write_text(agents_module.read_text() + '\nAgent.instrument_all()\n')  # as the page says
    metrics_address = f'127.0.0.1:{free_port()}'
    with collector() as (endpoint, received):
        line = re.sub(r'OTEL_EXPORTER_OTLP_ENDPOINT=\S+', f'OTEL_EXPORTER_OTLP_ENDPOINT={endpoint}', command)
        line = re.sub(r'--prometheus-address \S+', f'--prometheus-address {metrics_address}', line)
        words = shlex.split(line)
        variables = dict(word.split('=', 1) for word in words if re.match(r'^[A-Z_]+=', word))
        program = [AGENTS if word == 'agents' else word for word in words if not re.match(r'^[A-Z_]+=', word)]
        env = user_env(
            **variables,
            TEMPORAL_ADDRESS=client.service_client.config.target_host,
            OTEL_BSP_SCHEDULE_DELAY='100',
            OTEL_METRIC_EXPORT_INTERVAL='200',
        )
        async with started(
            *program, '--task-queue', task_queue, cwd=folder, env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        ) as process:  # fmt: skip
            await eventually(
                lambda: 'temporal_' in scrape(metrics_address), 'Temporal metrics on the Prometheus address'
            )
            # The support agent asks for approvals: its first model request and its metrics are exported meanwhile.
            agents = AgentClient(client, task_queue=task_queue)
            handle = await agents.start('support', 'Clean up my files')
            await eventually(
                lambda: any(b'chat function' in body for body in received.get('/v1/traces', [])), 'a chat span'
            )
            await eventually(
                lambda: any(b'gen_ai.client.operation.duration' in body for body in received.get('/v1/metrics', [])),
                'the GenAI duration metric',
            )
            await handle.terminate('test over')
            process.send_signal(signal.SIGINT)
            _, err = await asyncio.wait_for(process.communicate(), 60)
    assert b'support-worker' in b''.join(received['/v1/traces'])  # OTEL_SERVICE_NAME names the resource
    assert process.returncode == 0, err.decode()[-2000:]
