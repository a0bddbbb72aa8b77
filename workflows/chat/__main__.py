"""`python -m workflows.chat`: the chat page over durable conversations, with a worker in the same process.

```bash
python -m workflows.chat --agents myapp.agents:support --dev                 # with an embedded dev server
python -m workflows.chat --agents myapp.agents:support --address localhost:7233 --port 8000
```

It prints the page's address with its bearer token (`#token=...`: the page keeps it for the tab and removes it from
the address bar). The worker publishes each turn's events straight into the server's hub (`InMemoryPublisher`); a
chat server whose workers run elsewhere uses `HttpPublisher` and `turn_events_route` instead.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import signal
import socket
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from agent import Agent
from agent.exceptions import UserError
from agent.ui.web import bearer_token_auth, create_chat_app
from workflows._durable_agent import DurableAgent

from ._backend import DurableChatBackend
from ._hub import TurnEventHub
from ._relay import InMemoryPublisher

TOKEN_ENV = 'CHAT_TOKEN'
"""The environment variable that gives the page's bearer token (a random one is made without it)."""


async def serve(args: argparse.Namespace, agents: Mapping[str, Agent[Any, Any]]) -> None:
    """Start the worker and serve the page until interrupted."""
    import uvicorn

    from worker import DEFAULT_TASK_QUEUE, build_worker, connect, start_dev_server

    task_queue = args.task_queue or DEFAULT_TASK_QUEUE
    env = await start_dev_server(namespace=args.namespace, database=args.db, ui=True) if args.dev else None
    client = env.client if env is not None else await connect(args.address, args.namespace)
    hub = TurnEventHub()
    publisher = InMemoryPublisher(hub)
    durable = {name: DurableAgent(agent, event_stream_handler=publisher) for name, agent in agents.items()}
    backend = DurableChatBackend(client, agents=list(agents), task_queue=task_queue, hub=hub)
    token = args.token or os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(24)
    app = create_chat_app(backend, auth=bearer_token_auth(token))
    # Bound here, so the printed address has the real port (also with --port 0).
    listener = socket.create_server((args.host, args.port))
    host, port = listener.getsockname()[:2]
    server = uvicorn.Server(uvicorn.Config(app, log_level='warning', lifespan='off', timeout_graceful_shutdown=2))
    # uvicorn takes SIGINT and SIGTERM while it serves and raises them again once it has stopped. With handlers of
    # this loop in place, that second delivery is a no-op here, instead of cancelling this task in the middle of the
    # worker's shutdown (which then never finishes).
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, server.handle_exit, signum, None)
    try:
        async with build_worker(client, durable, task_queue=task_queue):
            print(f'Chat with {", ".join(agents)}: http://{host}:{port}/#token={token}', flush=True)
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
