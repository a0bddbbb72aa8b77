"""The chat scenario's worker process (`python -m bench.chat_worker`): the stamped streaming agent, and its CPU time.

```bash
python -m bench.chat_worker --address localhost:7233 --task-queue q --deltas 50 --interval 0.02 \\
    --events http --publish-url http://127.0.0.1:8000/internal/turn-events --token secret
```

`--events` says what the model-request activity does with the turn's events:

- `none`: no event stream handler, so the model request is not streamed (the whole response at once);
- `drain`: streamed, and the handler reads the events and drops them (streaming without publishing);
- `http`: streamed and published to the chat server with `HttpPublisher` (what a separate worker does).

It prints `Worker running` once it polls, then answers each `cpu` line on stdin with `cpu <seconds>`: the
process's CPU time so far (`time.process_time()`, every thread, the SDK core's included), so the benchmark can
take the worker's CPU over a stretch of turns. It stops when stdin closes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

from agent import RunContext
from doors.chat import HttpPublisher
from worker import build_worker, connect, exit_process
from workflows import DurableAgent

from ._worker_process import answer_requests
from .agents import streamed_chat_agent

EVENTS = ('none', 'drain', 'http')
"""What the worker does with a turn's events (see the module docstring)."""


async def drain(ctx: RunContext[Any], events: AsyncIterator[Any]) -> None:
    """An event stream handler that reads the events and keeps none."""
    async for _ in events:
        pass


async def serve(args: argparse.Namespace) -> None:
    client = await connect(args.address, args.namespace)
    agent = streamed_chat_agent(args.deltas, args.interval)
    async with contextlib.AsyncExitStack() as stack:
        handler: Any = None
        if args.events == 'drain':
            handler = drain
        elif args.events == 'http':
            handler = await stack.enter_async_context(HttpPublisher(args.publish_url, args.token))
        durable = DurableAgent(agent, event_stream_handler=handler)
        await stack.enter_async_context(
            build_worker(client, {agent.name or 'bench_chat': durable}, task_queue=args.task_queue)
        )
        await answer_requests()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--address', required=True, help='Temporal server address')
    parser.add_argument('--namespace', default='default', help='Temporal namespace')
    parser.add_argument('--task-queue', required=True, help='task queue to poll')
    parser.add_argument('--deltas', type=int, required=True, help='text deltas per model response')
    parser.add_argument('--interval', type=float, required=True, help='seconds between two deltas')
    parser.add_argument('--events', choices=EVENTS, required=True, help='what to do with the turn events')
    parser.add_argument('--publish-url', help="with --events http: the chat server's turn events endpoint")
    parser.add_argument('--token', help="with --events http: the endpoint's token")
    args = parser.parse_args(argv)
    if args.events == 'http' and not (args.publish_url and args.token):
        parser.error('--events http needs --publish-url and --token')
    asyncio.run(serve(args))
    return 0


if __name__ == '__main__':
    exit_process(main())
