"""`python -m doors.chat`: the chat page over durable conversations, with a worker in the same process or not.

```bash
python -m doors.chat --agents myapp.agents:support --dev                 # with an embedded dev server
python -m doors.chat --agents myapp.agents:support --port 8000          # on the server of $TEMPORAL_ADDRESS
```

`agents chat` is the same command. It connects as every command does (Temporal's environment configuration:
`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, the TLS variables, `TEMPORAL_PROFILE`; flags over
them), and serves on port 8000 (another free one when 8000 is taken and no `--port` is given). It prints the page's
address with its bearer token (`#token=...`: the page keeps it for the tab and removes it from the address bar). Its
worker publishes each turn's events straight into the server's hub (`InMemoryPublisher`).

Workers in other processes (or on other machines) stream to the page too: they post their turns' events to the
server's `POST /internal/turn-events` (`turn_events_route`) with a token shared with it. With `--no-worker` the
server runs no worker and prints the endpoint and its token; give both to each worker:

```bash
python -m doors.chat --agents myapp.agents:support --no-worker
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
import socket
import sys
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from temporalio.client import Client

from agent import Agent
from agent.exceptions import UserError
from agent.ui.web import bearer_token_auth, create_chat_app
from worker import (
    CHAT_EVENTS_TOKEN_ENV,
    CHAT_EVENTS_URL_ENV,
    DEFAULT_TASK_QUEUE,
    build_worker,
    connect,
    exit_process,
    load_agents,
    start_dev_server,
    web_ui_url,
)
from workflows._durable_agent import DurableAgent, with_event_stream_handler

from ._arguments import DEFAULT_PORT, DEFAULT_WORKER_TIMEOUT, TOKEN_ENV, add_chat_arguments
from ._backend import DurableChatBackend
from ._hub import TurnEventHub
from ._hub_route import TURN_EVENTS_PATH, turn_events_route
from ._listener import tcp_listener
from ._relay import InMemoryPublisher

if TYPE_CHECKING:
    from starlette.applications import Starlette


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
    client: Client,
    agents: Sequence[str],
    *,
    task_queue: str,
    token: str,
    events_token: str,
    allowed_hosts: Sequence[str] = (),
    worker_timeout: float = DEFAULT_WORKER_TIMEOUT,
) -> ChatServer:
    """The chat app over the conversations of `agents`, taking the workers' events at `TURN_EVENTS_PATH`.

    Args:
        client: The Temporal client.
        agents: The agents' registered names.
        task_queue: The task queue of the workers that run them.
        token: The page's bearer token.
        events_token: The token the workers' `HttpPublisher` sends.
        allowed_hosts: Host names the server answers besides `localhost` and IP addresses: the names browsers and
            workers reach it by (e.g. a compose service's name).
        worker_timeout: Seconds a request waits for a worker before the page is told that none serves `task_queue`.
    """
    hub = TurnEventHub()
    backend = DurableChatBackend(client, agents=agents, task_queue=task_queue, hub=hub, worker_timeout=worker_timeout)
    app = create_chat_app(backend, auth=bearer_token_auth(token), allowed_hosts=allowed_hosts)
    # First: the page's static files, mounted at `/`, take every path routed after them.
    app.router.routes.insert(0, turn_events_route(hub, events_token))
    return ChatServer(app, backend, hub)


def _listen(host: str, port: int | None) -> socket.socket:
    """The page's socket: on `port`, or on `DEFAULT_PORT` if free and another free port if not."""
    if port is not None:
        return tcp_listener(host, port)
    try:
        return tcp_listener(host, DEFAULT_PORT)
    except OSError:  # taken: the printed address says where the page is instead
        return tcp_listener(host, 0)


def _address(host: str, port: int) -> str:
    """The page's base URL; on every interface (`0.0.0.0`, a container's), `localhost` is where a person opens it."""
    if host in ('0.0.0.0', '::'):
        host = 'localhost'
    return f'http://[{host}]:{port}' if ':' in host else f'http://{host}:{port}'


async def serve(
    args: argparse.Namespace,
    agents: Mapping[str, Agent[Any, Any] | DurableAgent],
    settings: Mapping[str, Any] | None = None,
) -> None:
    """Start the worker (unless `--no-worker`) and serve the page until interrupted.

    Args:
        args: The parsed arguments of `add_chat_arguments`.
        agents: The agents by registered name.
        settings: Connection settings over Temporal's environment configuration (the keyword arguments of
            `workflows._connection.connect_config`); ignored with `--dev`.
    """
    settings = dict(settings or {})
    task_queue = args.task_queue or DEFAULT_TASK_QUEUE
    env = None
    if args.dev:
        namespace = settings.get('namespace') or 'default'
        env = await start_dev_server(namespace=namespace, database=args.db, ui=True)
        address = env.client.service_client.config.target_host
        print(f'Temporal dev server at {address} (namespace {namespace!r}), Web UI at {web_ui_url(env)}', flush=True)
        print(f'Other terminals reach it with:  export TEMPORAL_ADDRESS={address}', flush=True)
    try:
        client = env.client if env is not None else await connect(**settings)
        token = args.token or os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(24)
        events_token = args.events_token or os.environ.get(CHAT_EVENTS_TOKEN_ENV) or secrets.token_urlsafe(24)
        chat = build_chat_server(
            client,
            list(agents),
            task_queue=task_queue,
            token=token,
            events_token=events_token,
            allowed_hosts=args.allow_host,
            worker_timeout=args.worker_timeout,
        )
        try:
            worker: AbstractAsyncContextManager[Any] = nullcontext()
            if not args.no_worker:
                publisher = InMemoryPublisher(chat.hub)
                durable = {name: with_event_stream_handler(agent, publisher) for name, agent in agents.items()}
                worker = build_worker(client, durable, task_queue=task_queue)
            # Bound here, so the printed address has the real port.
            listener = _listen(args.host, args.port)
            page = _address(*listener.getsockname()[:2])
            await _serve_page(
                chat, worker, listener, page, token=token, events_token=events_token, no_worker=args.no_worker
            )
        finally:
            chat.backend.close()
    finally:
        if env is not None:
            await env.shutdown()


async def _serve_page(
    chat: ChatServer,
    worker: AbstractAsyncContextManager[Any],
    listener: socket.socket,
    base_url: str,
    *,
    token: str,
    events_token: str,
    no_worker: bool,
) -> None:
    """Run the worker and serve the page on `listener` (at `base_url`) until SIGINT or SIGTERM."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(chat.app, log_level='warning', lifespan='off', timeout_graceful_shutdown=2))
    # uvicorn takes SIGINT and SIGTERM while it serves and raises them again once it has stopped. With handlers of
    # this loop in place, that second delivery is a no-op here, instead of cancelling this task in the middle of the
    # worker's shutdown (which then never finishes).
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, server.handle_exit, signum, None)
    async with worker:
        print(f'Chat with {", ".join(chat.backend.agent_names())}: {base_url}/#token={token}', flush=True)
        if no_worker:
            print(
                f'Workers publish turn events with: {CHAT_EVENTS_URL_ENV}={base_url}{TURN_EVENTS_PATH} '
                f'{CHAT_EVENTS_TOKEN_ENV}={events_token}',
                flush=True,
            )
        await server.serve(sockets=[listener])


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog='python -m doors.chat', description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_chat_arguments(parser)
    args = parser.parse_args(argv)
    try:
        agents = load_agents(args.agents)
    except (UserError, ImportError, AttributeError) as exc:
        print(f'error: cannot load the agents: {exc}', file=sys.stderr)
        return 2
    try:
        asyncio.run(serve(args, agents, {'address': args.address, 'namespace': args.namespace}))
    except (OSError, RuntimeError) as exc:
        # A port in use, a server that cannot be reached: one line, no traceback.
        print(f'error: {exc}', file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == '__main__':
    exit_process(main())
