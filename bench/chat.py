"""S8 `streamed_chat`: a durable chat turn streamed to an AI SDK client, from the model's deltas to the client.

The chat app (`create_chat_app` over `DurableChatBackend`, with a `TurnEventHub` and the `turn_events_route`) is
served by uvicorn on a loopback port in this process; an HTTP client posts each turn to `POST /api/chat` as the
page's `useChat` does and reads the UI message stream line by line as it arrives. The model (`bench.agents.
streamed_chat_agent`) stamps every text delta with the wall-clock time it made it, so the client can tell how long
each delta took to reach it, across processes. The same conversation is run with these workers:

- `http`: a worker process (`bench.chat_worker`) publishing through `HttpPublisher` to the app's turn events
  route: the path of a chat server whose workers run elsewhere, and the headline numbers;
- `memory`: a worker in this process publishing with `InMemoryPublisher` (the one-command demo's path);
- `drain`: a worker process that streams the model request and drops the events (streaming without publishing);
- `none`: a worker process without an event stream handler: the model request is not streamed (the
  bare-Temporal floor). Its text is made at once, when the stream would have ended.

With nothing published (`drain`, `none`) the turn's stream carries no text, so the client reads it from the
conversation's messages (`GET /api/chat/{id}/messages`) once the stream ends, as a page does after a reload.
- `inprocess`: `Agent.to_web()`, the same app over the agent in this process, no Temporal.

Each conversation's first turn is a warm-up (connections, caches). The history is the conversation workflow's,
fetched after the warm-up and after the last turn, so `*_per_turn` is what one more turn adds, the workflow's
start left out. Worker CPU is the worker process's `time.process_time()` over the measured turns, so `none` vs
`http` is the extra CPU streaming costs the worker; `drain` splits it into streaming the model request and
publishing the events. Wall-clock stamps compare across processes on one machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import secrets
import statistics
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import httpx2
import uvicorn
from starlette.applications import Starlette
from temporalio.client import Client

from agent.ui.web import bearer_token_auth, create_chat_app
from doors.chat import (
    TURN_EVENTS_PATH,
    DurableChatBackend,
    InMemoryPublisher,
    TurnEventHub,
    chat_workflow_id,
    turn_events_route,
)
from doors.chat._listener import tcp_listener
from worker import build_worker
from workflows import DurableAgent

from ._support import Bench, history_stats, log, ms, new_task_queue, within
from ._worker_process import WorkerProcess, connection_args
from .agents import stamped_deltas, streamed_chat_agent

__all__ = ('ChatShape', 'TurnTiming', 's8_streamed_chat', 'streamed_chat')

CHAT_AGENT = 'bench_chat'
TARGET_FIRST_DELTA_MS = 150
"""Issue 14's target for the model's first delta to reach the browser, on this machine."""
TURN_BOUND = 60.0  # seconds one turn may take before the scenario fails


@dataclass(frozen=True)
class ChatShape:
    """How much the scenario does."""

    turns: int
    """Measured turns per conversation (after one warm-up turn)."""
    deltas: int
    """Text deltas per model response."""
    interval: float
    """Seconds between two deltas (a model streaming 50 tokens a second: 0.02)."""

    @classmethod
    def for_mode(cls, quick: bool) -> ChatShape:
        return cls(turns=3, deltas=20, interval=0.01) if quick else cls(turns=10, deltas=50, interval=0.02)


@dataclass
class TurnTiming:
    """One turn as the client saw it; times are `time.time()`."""

    posted: float
    """When the client sent the request."""
    first_text: float
    """When the first text delta arrived."""
    ended: float
    """When the response ended."""
    deltas: list[tuple[int, float, float]]
    """Every stamped delta: its index, when the model made it, when the client received it."""


# --- the client --------------------------------------------------------------------------------------------


def user_message(chat_id: str, text: str) -> dict[str, Any]:
    """A `useChat` request sending one user message."""
    message = {'id': f'u-{uuid.uuid4().hex[:8]}', 'role': 'user', 'parts': [{'type': 'text', 'text': text}]}
    return {'id': chat_id, 'trigger': 'submit-message', 'messages': [message]}


async def chat_turn(http: httpx2.AsyncClient, chat_id: str, prompt: str, deltas: int, *, live: bool) -> TurnTiming:
    """Post one turn and read its stream as it arrives, stamping each `data:` line when it is read.

    Without `live` streaming (no worker publishes the turn's events) the stream carries no text, so the text is
    read afterwards from the conversation's messages, as a page does after a reload.
    """
    posted = time.time()
    first_text: float | None = None
    seen: list[tuple[int, float, float]] = []
    async with http.stream('POST', '/api/chat', json=user_message(chat_id, prompt)) as response:
        if response.status_code != 200:
            await response.aread()
            raise RuntimeError(f'POST /api/chat answered {response.status_code}: {response.text[:300]}')
        async for line in response.aiter_lines():
            received = time.time()
            if not line.startswith('data: {'):
                continue
            chunk = json.loads(line[6:])
            if chunk.get('type') == 'error':
                raise RuntimeError(f'The turn failed: {chunk.get("errorText")}')
            if chunk.get('type') == 'text-delta':
                first_text = first_text or received
                seen.extend((index, made, received) for index, made in stamped_deltas(chunk['delta']))
    if not live:
        answer = (await http.get(f'/api/chat/{chat_id}/messages')).raise_for_status().json()[-1]
        first_text = time.time()
        text = ''.join(part['text'] for part in answer['parts'] if part['type'] == 'text')
        seen = [(index, made, first_text) for index, made in stamped_deltas(text)]
    if [index for index, _, _ in seen] != list(range(deltas)) or first_text is None:
        raise RuntimeError(f'The turn streamed deltas {[index for index, _, _ in seen]}, not 0-{deltas - 1} once each')
    return TurnTiming(posted, first_text, time.time(), seen)


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (`q` in 0-100)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


LATENCY_FIELDS = ('first_delta_ms', 'first_delta_p95_ms', 'delta_ms', 'delta_p95_ms', 'request_to_first_text_ms')


def latencies(turns: Sequence[TurnTiming]) -> dict[str, Any]:
    first = [turn.deltas[0][2] - turn.deltas[0][1] for turn in turns]
    every = [received - made for turn in turns for _, made, received in turn.deltas]
    return {
        'first_delta_ms': ms(statistics.median(first)),
        'first_delta_p95_ms': ms(percentile(first, 95)),
        'delta_ms': ms(statistics.median(every)),
        'delta_p95_ms': ms(percentile(every, 95)),
        'request_to_first_text_ms': ms(statistics.median(turn.first_text - turn.posted for turn in turns)),
        'turn_ms': ms(statistics.median(turn.ended - turn.posted for turn in turns)),
    }


# --- the server and the worker -----------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def serving(app: Starlette) -> AsyncIterator[str]:
    """Serve `app` with uvicorn on a free loopback port; yields its base URL."""
    listener = tcp_listener('127.0.0.1', 0)
    port = listener.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level='warning', lifespan='off', timeout_graceful_shutdown=2))
    task = asyncio.create_task(server.serve(sockets=[listener]))
    try:
        yield f'http://127.0.0.1:{port}'
    finally:
        server.should_exit = True
        await task
        listener.close()


# --- the modes ---------------------------------------------------------------------------------------------


async def converse(
    base: str,
    token: str | None,
    shape: ChatShape,
    client: Client | None,
    worker: WorkerProcess | None = None,
    *,
    live: bool = True,
) -> dict[str, Any]:
    """A warm-up turn, then `shape.turns` measured ones in one conversation.

    With `client`, the conversation workflow's history growth over the measured turns; with `worker`, its CPU.
    """
    chat_id = f'bench-{uuid.uuid4().hex[:12]}'
    headers = {'Authorization': f'Bearer {token}'} if token else {}
    async with httpx2.AsyncClient(base_url=base, headers=headers, timeout=TURN_BOUND) as http:
        await within(TURN_BOUND, 'The warm-up turn', chat_turn(http, chat_id, 'warm up', shape.deltas, live=live))
        before = await history(client, chat_id) if client else None
        cpu = await worker.cpu() if worker else 0.0
        turns = [
            await within(TURN_BOUND, f'Turn {i}', chat_turn(http, chat_id, f'turn {i}', shape.deltas, live=live))
            for i in range(1, shape.turns + 1)
        ]
        cpu = await worker.cpu() - cpu if worker else 0.0
    metrics = latencies(turns)
    if worker:
        metrics['worker_cpu_ms_per_turn'] = ms(cpu / shape.turns)
    if client and before:
        after = await history(client, chat_id)
        grown = after['history_proto_bytes'] - before['history_proto_bytes']
        metrics.update(
            first_turn_history_proto_bytes=before['history_proto_bytes'],
            history_proto_bytes_per_turn=round(grown / shape.turns),
            history_events_per_turn=(after['history_events'] - before['history_events']) / shape.turns,
            largest_payload_bytes=after['largest_payload_bytes'],
            workflow_task_failures=after['workflow_task_failures'],
            activity_retries=after['activity_retries'],
        )
    return metrics


async def history(client: Client, chat_id: str) -> dict[str, Any]:
    return history_stats(await client.get_workflow_handle(chat_workflow_id(chat_id)).fetch_history())


def durable_app(client: Client, queue: str, hub: TurnEventHub, token: str) -> tuple[Starlette, DurableChatBackend]:
    backend = DurableChatBackend(client, agents=[CHAT_AGENT], task_queue=queue, hub=hub)
    app = create_chat_app(backend, auth=bearer_token_auth(token))
    app.router.routes.insert(0, turn_events_route(hub, token))  # ahead of the page's catch-all mount
    return app, backend


async def with_worker_process(client: Client, events: str, shape: ChatShape) -> dict[str, Any]:
    """The conversation with a worker process that does `events` with the turn events (see `bench.chat_worker`)."""
    queue, token, hub = new_task_queue(f'S8-{events}'), secrets.token_urlsafe(16), TurnEventHub()
    app, backend = durable_app(client, queue, hub, token)
    try:
        async with serving(app) as base:
            publish = (base + TURN_EVENTS_PATH, token) if events == 'http' else ()
            args = ('--task-queue', queue, '--events', events, *connection_args(client))
            args += ('--deltas', str(shape.deltas), '--interval', str(shape.interval))
            args += ('--publish-url', publish[0], '--token', publish[1]) if publish else ()
            async with WorkerProcess.running('bench.chat_worker', *args, label=f'S8 {events}') as worker:
                metrics = await converse(base, token, shape, client, worker, live=events == 'http')
    finally:
        backend.close()
    if events == 'drain':
        # Its text reaches the client only at the turn's end (from the messages), long after the deltas were made:
        # those times say nothing. `none` makes its whole text at the end, so its times are the unstreamed floor.
        metrics = {key: value for key, value in metrics.items() if key not in LATENCY_FIELDS}
    return metrics


async def with_worker_in_memory(client: Client, shape: ChatShape) -> dict[str, Any]:
    """The conversation with a worker in this process publishing straight into the hub."""
    queue, token, hub = new_task_queue('S8-memory'), secrets.token_urlsafe(16), TurnEventHub()
    app, backend = durable_app(client, queue, hub, token)
    durable = DurableAgent(
        streamed_chat_agent(shape.deltas, shape.interval), event_stream_handler=InMemoryPublisher(hub)
    )
    try:
        async with build_worker(client, {CHAT_AGENT: durable}, task_queue=queue), serving(app) as base:
            return await converse(base, token, shape, client)
    finally:
        backend.close()


async def in_process(shape: ChatShape) -> dict[str, Any]:
    """The same conversation with `Agent.to_web()`: the agent runs in the app, no Temporal."""
    async with serving(streamed_chat_agent(shape.deltas, shape.interval).to_web()) as base:
        return await converse(base, None, shape, None)


async def streamed_chat(client: Client, shape: ChatShape) -> dict[str, Any]:
    """Every mode of the scenario on the dev server of `client`, and the headline numbers."""
    modes: dict[str, dict[str, Any]] = {}
    for events in ('http', 'drain', 'none'):
        modes[events] = await with_worker_process(client, events, shape)
        log.info('S8 %s: %s', events, modes[events])
    modes['memory'] = await with_worker_in_memory(client, shape)
    log.info('S8 memory: %s', modes['memory'])
    modes['inprocess'] = await in_process(shape)
    log.info('S8 inprocess: %s', modes['inprocess'])
    http, none, drain = modes['http'], modes['none'], modes['drain']
    extra_cpu = http['worker_cpu_ms_per_turn'] - none['worker_cpu_ms_per_turn']
    return {
        'deltas': shape.deltas,
        'interval_ms': ms(shape.interval),
        'turns': shape.turns,
        'first_delta_ms': http['first_delta_ms'],
        'first_delta_p95_ms': http['first_delta_p95_ms'],
        'delta_ms': http['delta_ms'],
        'delta_p95_ms': http['delta_p95_ms'],
        'first_delta_target_ms': TARGET_FIRST_DELTA_MS,
        'first_delta_within_target': http['first_delta_p95_ms'] < TARGET_FIRST_DELTA_MS,
        'history_proto_bytes_per_turn': http['history_proto_bytes_per_turn'],
        'unstreamed_history_proto_bytes_per_turn': none['history_proto_bytes_per_turn'],
        'history_events_per_turn': http['history_events_per_turn'],
        'unstreamed_history_events_per_turn': none['history_events_per_turn'],
        'worker_cpu_ms_per_turn': http['worker_cpu_ms_per_turn'],
        'unstreamed_worker_cpu_ms_per_turn': none['worker_cpu_ms_per_turn'],
        'streaming_extra_cpu_ms_per_turn': round(extra_cpu, 1),
        'streaming_extra_cpu_us_per_delta': round(extra_cpu * 1000 / shape.deltas),
        'publishing_cpu_ms_per_turn': round(http['worker_cpu_ms_per_turn'] - drain['worker_cpu_ms_per_turn'], 1),
        'unstreamed_made_to_client_ms': none['delta_ms'],
        'inprocess_first_delta_ms': modes['inprocess']['first_delta_ms'],
        'durable_over_inprocess_first_delta': round(http['first_delta_ms'] / modes['inprocess']['first_delta_ms'], 1),
        'modes': modes,
    }


async def s8_streamed_chat(bench: Bench) -> dict[str, Any]:
    """S8: the scenario in the shape `--quick` says (see the module docstring)."""
    return await streamed_chat(bench.client, ChatShape.for_mode(bench.quick))
