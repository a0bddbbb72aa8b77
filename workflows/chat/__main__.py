"""`python -m workflows.chat`: the chat page over durable conversations, with a worker in the same process or not.

```bash
python -m workflows.chat --agents myapp.agents:support --dev                 # with an embedded dev server
python -m workflows.chat --agents myapp.agents:support --address localhost:7233 --port 8000
```

It prints the page's address with its bearer token (`#token=...`: the page keeps it for the tab and removes it from
the address bar). Its worker publishes each turn's events straight into the server's hub (`InMemoryPublisher`).

Workers in other processes (or on other machines) stream to the page too: they post their turns' events to the
server's `POST /internal/turn-events` (`turn_events_route`) with a token shared with it. With `--no-worker` the
server runs no worker and prints the endpoint and its token; give both to each worker:

```bash
python -m workflows.chat --agents myapp.agents:support --no-worker
# Workers publish turn events with: AGENT_CHAT_EVENTS_URL=http://127.0.0.1:8000/internal/turn-events ...
AGENT_CHAT_EVENTS_URL=... AGENT_CHAT_EVENTS_TOKEN=... python -m worker --agents myapp.agents:support
```

The workers need the same agents on the same task queue (with `--no-worker` the server loads them only for
their names). A server with its own worker takes events from other workers as well (with `--events-token`, or
`$AGENT_CHAT_EVENTS_TOKEN`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import signal
import sys
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from temporalio.client import Client

from agent import Agent
from agent.exceptions import UserError
from agent.ui.web import bearer_token_auth, create_chat_app
from workflows._durable_agent import DurableAgent

from ._backend import DurableChatBackend
from ._hub import TurnEventHub
from ._hub_route import TURN_EVENTS_PATH, turn_events_route
from ._listener import tcp_listener
from ._relay import InMemoryPublisher

if TYPE_CHECKING:
    from starlette.applications import Starlette

TOKEN_ENV = 'CHAT_TOKEN'
"""The environment variable that gives the page's bearer token (a random one is made without it)."""


@dataclass(frozen=True)
class ChatServer:
    """The chat server's parts: the app to serve, its backend, and the hub its workers publish to."""

    app: Starlette
    """The page, its API, and the workers' turn events endpoint."""
    backend: DurableChatBackend
    """The conversations (close it when the server stops)."""
    hub: TurnEventHub
    """Where the turns' events arrive."""


def build_chat_server(
    client: Client, agents: Sequence[str], *, task_queue: str, token: str, events_token: str
) -> ChatServer:
    """The chat app over the conversations of `agents`, taking the workers' events at `TURN_EVENTS_PATH`.

    Args:
        client: The Temporal client.
        agents: The agents' registered names.
        task_queue: The task queue of the workers that run them.
        token: The page's bearer token.
        events_token: The token the workers' `HttpPublisher` sends.
    """
    hub = TurnEventHub()
    backend = DurableChatBackend(client, agents=agents, task_queue=task_queue, hub=hub)
    app = create_chat_app(backend, auth=bearer_token_auth(token))
    # First: the page's static files, mounted at `/`, take every path routed after them.
    app.router.routes.insert(0, turn_events_route(hub, events_token))
    return ChatServer(app, backend, hub)


async def serve(args: argparse.Namespace, agents: Mapping[str, Agent[Any, Any]]) -> None:
    """Start the worker (unless `--no-worker`) and serve the page until interrupted."""
    import uvicorn

    from worker import (
        CHAT_EVENTS_TOKEN_ENV,
        CHAT_EVENTS_URL_ENV,
        DEFAULT_TASK_QUEUE,
        build_worker,
        connect,
        start_dev_server,
    )

    task_queue = args.task_queue or DEFAULT_TASK_QUEUE
    env = await start_dev_server(namespace=args.namespace, database=args.db, ui=True) if args.dev else None
    client = env.client if env is not None else await connect(args.address, args.namespace)
    token = args.token or os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(24)
    events_token = args.events_token or os.environ.get(CHAT_EVENTS_TOKEN_ENV) or secrets.token_urlsafe(24)
    chat = build_chat_server(client, list(agents), task_queue=task_queue, token=token, events_token=events_token)
    backend = chat.backend
    worker: AbstractAsyncContextManager[Any] = nullcontext()
    if not args.no_worker:
        publisher = InMemoryPublisher(chat.hub)
        durable = {name: DurableAgent(agent, event_stream_handler=publisher) for name, agent in agents.items()}
        worker = build_worker(client, durable, task_queue=task_queue)
    # Bound here, so the printed address has the real port (also with --port 0).
    listener = tcp_listener(args.host, args.port)
    host, port = listener.getsockname()[:2]
    server = uvicorn.Server(uvicorn.Config(chat.app, log_level='warning', lifespan='off', timeout_graceful_shutdown=2))
    # uvicorn takes SIGINT and SIGTERM while it serves and raises them again once it has stopped. With handlers of
    # this loop in place, that second delivery is a no-op here, instead of cancelling this task in the middle of the
    # worker's shutdown (which then never finishes).
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, server.handle_exit, signum, None)
    try:
        async with worker:
            print(f'Chat with {", ".join(agents)}: http://{host}:{port}/#token={token}', flush=True)
            if args.no_worker:
                events_url = f'http://{host}:{port}{TURN_EVENTS_PATH}'
                print(
                    f'Workers publish turn events with: {CHAT_EVENTS_URL_ENV}={events_url} '
                    f'{CHAT_EVENTS_TOKEN_ENV}={events_token}',
                    flush=True,
                )
            await server.serve(sockets=[listener])
    finally:
        backend.close()
        if env is not None:
            await env.shutdown()


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog='python -m workflows.chat', description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        '--agents', nargs='+', required=True, help='agents to chat with: module:attribute references or spec files'
    )
    parser.add_argument('--dev', action='store_true', help='start an embedded Temporal dev server (with Web UI)')
    parser.add_argument('--db', default='temporal-dev.db', help='SQLite file for the embedded dev server')
    parser.add_argument('--address', default='localhost:7233', help='Temporal server address')
    parser.add_argument('--namespace', default='default', help='Temporal namespace')
    parser.add_argument('--task-queue', help="task queue of the worker (default: the worker's)")
    parser.add_argument('--host', default='127.0.0.1', help='address the page is served on (default 127.0.0.1)')
    parser.add_argument('--port', type=int, default=8000, help='port the page is served on (default 8000; 0: any)')
    parser.add_argument('--token', help=f"the page's bearer token (default: ${TOKEN_ENV}, else a random one)")
    parser.add_argument(
        '--no-worker',
        action='store_true',
        help='serve the page only; workers started elsewhere publish to it (it prints how)',
    )
    parser.add_argument(
        '--events-token',
        help='the token workers send with their turn events (default: $AGENT_CHAT_EVENTS_TOKEN, else a random one)',
    )
    args = parser.parse_args(argv)
    from worker import load_agents

    try:
        agents = load_agents(args.agents)
    except (UserError, ImportError, AttributeError) as exc:
        print(f'error: cannot load the agents: {exc}', file=sys.stderr)
        return 2
    try:
        asyncio.run(serve(args, agents))
    except (OSError, RuntimeError) as exc:
        # A port in use, a server that cannot be reached: one line, no traceback.
        print(f'error: {exc}', file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == '__main__':
    from worker import exit_process

    exit_process(main())
