"""A worker killed mid-tool: the new worker's spans complete the same trace, each span once; Prometheus metrics."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import urllib.request
import uuid
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from tests._processes import started
from tests.instrumentation._otel import Telemetry
from worker import build_worker, connect
from workflows.client import AgentClient

from ._traces import SeenSpan, Trace, read_json_lines
from .test_crash_resume import ROOT, wait_for_line

pytestmark = pytest.mark.asyncio(loop_scope='session')


def start_traced_worker(
    env: WorkflowEnvironment, task_queue: str, log: Path, spans: Path
) -> AbstractAsyncContextManager[asyncio.subprocess.Process]:
    """`worker.py` with the traced crash agent, writing its spans to `spans`; killed on exit if still running."""
    return started(
        sys.executable,
        str(ROOT / 'worker.py'),
        '--agents',
        'tests.durable.tracing_worker:traced_crash_agent',
        '--address',
        env.client.service_client.config.target_host,
        '--task-queue',
        task_queue,
        cwd=ROOT,
        env={**os.environ, 'CRASH_LOG': str(log), 'TRACE_FILE': str(spans), 'PYTHONPATH': str(ROOT)},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )


async def test_a_worker_killed_mid_tool_leaves_one_trace_with_each_span_once(
    temporal_env: WorkflowEnvironment, client: Client, task_queue: str, tmp_path: Path
) -> None:
    telemetry = Telemetry.create()
    log, spans = tmp_path / 'tools.log', tmp_path / 'spans.jsonl'
    agents = AgentClient(client, task_queue=task_queue, tracer_provider=telemetry.tracer_provider)
    async with start_traced_worker(temporal_env, task_queue, log, spans) as first:
        handle = await agents.start('traced_crash_agent', 'go', workflow_id=f'traced-crash-{uuid.uuid4()}')
        await wait_for_line(log, 'slow_step slow-1')
        first.send_signal(signal.SIGKILL)
        await first.wait()
    async with start_traced_worker(temporal_env, task_queue, log, spans):
        output = await asyncio.wait_for(handle.result(), 30)
    assert output.output == 'quick done | slow done'

    client_spans = [SeenSpan.from_sdk(span) for span in telemetry.spans()]
    trace = Trace([*client_spans, *read_json_lines(spans)])
    trace.assert_each_span_once()
    # The killed attempt's spans were open when the process died, so they are missing (never exported, never
    # errored); the retry on the new worker recorded the tool call once.
    assert trace.genai_counts() == {
        'invoke_agent traced_crash_agent': 1,
        'chat function:_respond:': 3,
        'execute_tool quick_step': 1,
        'execute_tool slow_step': 1,
    }
    assert not trace.one('execute_tool slow_step').error
    # Each tool call is its activity attempt's span: quick_step's, and slow_step's retry (the killed attempt's never
    # ended, so it was never exported).
    assert trace.named('RunActivity:') == []
    assert len({span.attributes['temporalActivityID'] for span in trace.named('execute_tool ')}) == 2
    run = trace.one('invoke_agent')
    assert trace.ancestors(run) == ['RunWorkflow:AgentWorkflow', 'StartWorkflow:AgentWorkflow']
    for span in [*trace.named('chat '), *trace.named('execute_tool ')]:
        assert trace.genai_parent(span) == 'invoke_agent traced_crash_agent'
        assert trace.ancestors(span)[-1] == 'StartWorkflow:AgentWorkflow'  # every ancestor was exported


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return int(probe.getsockname()[1])


async def test_a_worker_connected_with_a_prometheus_address_serves_temporal_metrics(
    temporal_env: WorkflowEnvironment, task_queue: str
) -> None:
    address = f'127.0.0.1:{_free_port()}'
    client = await connect(temporal_env.client.service_client.config.target_host, prometheus_address=address)

    def scrape() -> str:
        with urllib.request.urlopen(f'http://{address}/metrics', timeout=5) as response:
            return response.read().decode()

    text = ''
    async with build_worker(client, {}, task_queue=task_queue):
        for _ in range(100):  # bounded: the worker's first polls produce the first metrics
            text = await asyncio.to_thread(scrape)
            if 'temporal_' in text:
                break
            await asyncio.sleep(0.05)
    assert 'temporal_' in text
    assert 'temporal_request' in text or 'temporal_worker' in text
