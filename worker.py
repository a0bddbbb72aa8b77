"""Build and run Temporal workers for a registry of named agents; `python worker.py` is `agents worker`.

```python
client = await connect()                                  # Temporal's environment configuration
worker = build_worker(client, {'support': support_agent})
await worker.run()
```

From a terminal, `python worker.py ARGS` and `python -m worker ARGS` are aliases of the installed command's
`agents worker ARGS` (and `--demo` of `agents demo`); both import the agents' modules from the current folder.

Agents are registered once per worker process; the workflow looks them up by name and never rebuilds
them per run.
"""

from __future__ import annotations

import hashlib
import importlib
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import temporalio
from temporalio.client import Client
from temporalio.worker import Replayer, UnsandboxedWorkflowRunner, Worker, WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from activities import agent_activities
from activities._agent_activities import HEARTBEAT_THROTTLE
from activities._external_event_ask import ask_external_event
from activities._remote_toolsets import RemoteToolsets
from agent import Agent
from agent._agent_run_setup import assemble_toolset
from agent.capabilities import CombinedCapability, split_by_side
from workflows import (
    AgentWorkflow,
    DurableAgent,
    data_converter,
    register_agent,
    with_data_converter,
    with_encryption,
)
from workflows._agent_loading import load_agents
from workflows._connection import connect_config
from workflows._dev_server import (
    DEV_SERVER_DYNAMIC_CONFIG,
    DEV_SERVER_STARTUP_TIMEOUT,
    DEV_SERVER_TIMER_FLOOR,
    DEV_SERVER_TRANSFER_POLL_RPS,
    DevServerNotStarted,
    dev_server_dynamic_config_args,
    start_dev_server,
    temporal_cli_path,
    web_ui_url,
)
from workflows._door import warm_up
from workflows._eviction import WaitingRunEvictions
from workflows._process import exit_process
from workflows._registry import agent_version, release_agent, set_workflow_side_errors
from workflows._replay_check import DEFAULT_LIMIT, DEFAULT_SINCE, ReplayVerdict
from workflows._replay_check import check_histories as _check_histories
from workflows._runner import AgentWorkflowRunner, ignores_contexts
from workflows._search_attributes import SearchAttributeGate
from workflows._telemetry import runtime_with_prometheus
from workflows._tracing import with_tracing
from workflows._versioning import deployment_config, versioned_worker_running

if TYPE_CHECKING:
    from opentelemetry.trace import TracerProvider

__all__ = (
    'CHAT_EVENTS_TOKEN_ENV',
    'CHAT_EVENTS_URL_ENV',
    'DEFAULT_TASK_QUEUE',
    'DEV_SERVER_DYNAMIC_CONFIG',
    'DEV_SERVER_STARTUP_TIMEOUT',
    'DEV_SERVER_TIMER_FLOOR',
    'DEV_SERVER_TRANSFER_POLL_RPS',
    'AgentWorker',
    'DevServerNotStarted',
    'ReplayVerdict',
    'build_replayer',
    'build_worker',
    'check_histories',
    'code_build_id',
    'connect',
    'dev_server_dynamic_config_args',
    'exit_process',
    'load_agents',
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


WORKFLOW_TASK_THREADS = 16
"""Threads a worker runs workflow activations on (unless given `workflow_task_executor`; see `build_worker`)."""


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
    evict_waiting_runs: bool = True,
    sandboxed: bool = True,
    workflow_side_errors: Literal['fail', 'retry'] = 'fail',
    deployment: str | None = None,
    build_id: str | None = None,
    **worker_options: Any,
) -> AgentWorker:
    """A worker running `AgentWorkflow` and the activities of `agents`.

    With a tracer provider (`tracer_provider`, or a global one) the worker traces its workflows and activities
    with Temporal's tracing interceptor, unless `client` already does (see `workflows._tracing`); Temporal's own
    metrics come from the client's runtime (`connect(prometheus_address=...)`).

    New runs record the search attributes of `workflows._search_attributes` (the approvals inbox) when the
    namespace has them registered, which the worker asks once as it starts; `search_attributes=True` or `False`
    decides without asking (e.g. where the worker may not list them).

    With encryption keys in the environment (`AGENT_ENCRYPTION_KEYS`, see `workflows.EncryptionCodec`) and no
    codec on `client`, the worker encrypts every payload it writes. A payload encrypted with a key the worker does
    not hold (it has other keys, or none) fails, with an error naming the key id, the workflow task (which the
    server retries until a worker with the key takes it) or the activity attempt (retried per the activity's retry
    policy, then scheduled again by the workflow until a worker with the key runs it), never the run itself (see
    `workflows.with_encryption` and `workflows._missing_keys`).

    A run that waits for deferred tool results (an approval) is dropped from the worker's cache until the answer
    comes, then replayed (see `workflows._eviction`); `evict_waiting_runs=False` keeps such runs cached.

    `sandboxed=False` runs the workflow outside Temporal's sandbox (see `workflow_runner`): less CPU per workflow
    task, and nothing guards the workflow-side code against I/O.

    An exception from workflow-side user code fails the run (or the turn) with its type and message, as in-process;
    `workflow_side_errors='retry'` fails only its workflow task, which Temporal retries until fixed code resumes it.
    An exception from user code in a model request's activity (a history processor, a model-request hook) that is
    not transient I/O fails the run the same way; with `'retry'` it fails only that attempt, which Temporal retries
    until a worker with fixed code answers (see `activities._transient`).

    With `deployment`, the worker is version `build_id` (default `code_build_id(...)`) of that Temporal worker
    deployment (Worker Versioning): runs are pinned to the version that started them, and a conversation moves to the
    deployment's current version when it continues as new between turns (see `workflows._versioning`). The version
    takes new runs once it is made current (`agents deploy set-current`).

    Raises:
        UserError: for an invalid or duplicate agent name, an agent whose deps cannot be serialized, malformed
            encryption keys, or a `workflow_side_errors` other than `'fail'` or `'retry'`.
    """
    warm_up()  # the validators of what runs decode, built here rather than in a run's first workflow task
    activities: list[Any] = [ask_external_event]  # the `ask` of every agent's durable waits (`RequestInput`)
    remote: list[RemoteToolsets] = []
    durable_agents: list[DurableAgent] = []
    set_workflow_side_errors(task_queue, workflow_side_errors)
    # A tool's run of one of these agents becomes a child run of the workflow (see `activities._delegation`).
    names = {id(_agent_of(entry)): name for name, entry in agents.items()}

    def served(agent: Any) -> str | None:
        return names.get(id(agent))

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
                retry_user_errors=workflow_side_errors == 'retry',
                served=served,
                version=agent_version(name, task_queue),
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
    # Workflow activations are pure Python holding the GIL: the SDK's default of one thread per workflow task slot
    # (100) gains nothing on a busy worker but makes its event loop, which sends heartbeats and polls, wait its turn
    # behind every runnable activation thread. In the S5 benchmark's 1,000-approval burst that delayed heartbeats past
    # their timeout and retried healthy activities; a pool of a few threads keeps the loop responsive, and queued
    # activations finish one after another instead of all late together.
    if 'workflow_task_executor' not in worker_options:
        worker_options['workflow_task_executor'] = ThreadPoolExecutor(
            max_workers=WORKFLOW_TASK_THREADS, thread_name_prefix='agent_workflow_task'
        )
        owned_executor = worker_options['workflow_task_executor']
    else:
        owned_executor = None
    # Every workflow and activity task records the worker's build id; the SDK's default is 32 characters.
    version: str = build_id or worker_options.pop('build_id', None) or code_build_id(durable_agents)
    if deployment is not None:
        worker_options['deployment_config'] = deployment_config(deployment, version)
    else:
        worker_options['build_id'] = version
    return AgentWorker(
        with_tracing(with_encryption(with_data_converter(client)), tracer_provider),
        remote_toolsets=remote,
        registered=[(name, task_queue) for name in agents],
        search_attributes=search_attributes,
        evict_waiting_runs=evict_waiting_runs,
        owned_executor=owned_executor,
        task_queue=task_queue,
        workflows=[AgentWorkflow],
        activities=activities,
        workflow_runner=workflow_runner(sandboxed=sandboxed),
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
    With `evict_waiting_runs`, runs waiting for a person leave its workflow cache (see `workflows._eviction`).
    `owned_executor` (the activation thread pool `build_worker` made) is shut down when it stops, and the agents it
    `registered` (as `(name, task queue)`) are released from the registry.
    """

    def __init__(
        self,
        client: Client,
        *,
        remote_toolsets: Sequence[RemoteToolsets] = (),
        search_attributes: bool | None = None,
        evict_waiting_runs: bool = False,
        owned_executor: ThreadPoolExecutor | None = None,
        registered: Sequence[tuple[str, str]] = (),
        **options: Any,
    ) -> None:
        self._search_attributes = SearchAttributeGate(
            search_attributes, options.pop('patch_activation_callback', None), options.get('task_queue')
        )
        self._evictions = WaitingRunEvictions(client) if evict_waiting_runs else None
        options['workflow_runner'] = AgentWorkflowRunner(
            options.get('workflow_runner') or workflow_runner(),
            waiting=self._evictions.note if self._evictions is not None else None,
            context_free=ignores_contexts(client.data_converter),
        )
        super().__init__(client, patch_activation_callback=self._search_attributes.activate, **options)
        if self._evictions is not None:
            self._evictions.install(self)
        self._remote_toolsets = list(remote_toolsets)
        self._owned_executor = owned_executor
        self._registered = list(registered)

    @property
    def waiting_runs_evicted(self) -> int:
        """How many times a run waiting for a person was dropped from this worker's cache."""
        return self._evictions.requested if self._evictions is not None else 0

    async def run(self) -> None:
        """Run until shut down, then close the connections the activities kept open."""
        versioned = self.config().get('deployment_config') is not None
        if versioned:
            versioned_worker_running(self.task_queue, True)  # new runs from this process are routed, not eager
        try:
            await self._search_attributes.check(self.client)
            await super().run()
        finally:
            if versioned:
                versioned_worker_running(self.task_queue, False)
            if self._evictions is not None:
                self._evictions.cancel_pending()
            for remote in self._remote_toolsets:
                await remote.aclose()
            if self._owned_executor is not None:
                # The SDK leaves a pool it was given alone; its threads end once idle.
                self._owned_executor.shutdown(wait=False)
            for name, task_queue in self._registered:
                release_agent(name, task_queue)


def workflow_runner(*, sandboxed: bool = True) -> WorkflowRunner:
    """What runs the workflow: Temporal's sandbox with the runtime's packages passed through, or no sandbox.

    The sandbox patches Python's builtins while any workflow task runs, so workflow-side code (hooks that run in the
    workflow, instructions, prepare functions, output validators) that opens a file or a socket through them fails
    its run with `WorkflowSideIO` instead of making the run's replays diverge. The price is paid on every workflow
    task and, while any task runs, by every thread of the worker: each `isinstance`, `issubclass` and import goes
    through the sandbox's Python-level dispatch (a tenth or more of a tool loop's worker CPU; see `bench/README.md`).
    Without it (`sandboxed=False`, `agents worker --unsandboxed`) nothing checks workflow-side code, which must be
    deterministic either way: a worker of trusted, reviewed agents can take the saving, and the committed-history
    replay tests (`build_replayer`) still catch a change that breaks old runs.
    """
    if not sandboxed:
        return UnsandboxedWorkflowRunner()
    return SandboxedWorkflowRunner(
        restrictions=SandboxRestrictions.default.with_passthrough_modules(*PASSTHROUGH_MODULES)
    )


def build_replayer(agents: Mapping[str, Agent[Any, Any] | DurableAgent], *, sandboxed: bool = True) -> Replayer:
    """A replayer for recorded `AgentWorkflow` histories (the agents must be the ones that ran them), running the
    workflow the way `build_worker(..., sandboxed=sandboxed)` does."""
    for name, agent in agents.items():
        register_agent(name, agent)
    # The worker's runner, so a replay here costs what a worker's replay of an evicted run costs; and a build id,
    # which the SDK would otherwise compute on the first replay by hashing the bytecode of every loaded module.
    runner = AgentWorkflowRunner(workflow_runner(sandboxed=sandboxed), context_free=ignores_contexts(data_converter))
    return Replayer(
        workflows=[AgentWorkflow], data_converter=data_converter, workflow_runner=runner, build_id='replayer'
    )


async def check_histories(
    client: Client,
    agents: Mapping[str, Agent[Any, Any] | DurableAgent],
    *,
    limit: int = DEFAULT_LIMIT,
    since: timedelta = DEFAULT_SINCE,
    sandboxed: bool = True,
    by_input: bool | None = None,
) -> list[ReplayVerdict]:
    """Replay the recent runs of `agents` (up to `limit` each, started within `since`) against these agents' code,
    as `build_worker(..., sandboxed=sandboxed)` would run them; one verdict per run (see `workflows._replay_check`).

    This is `agents replay-check`: run it against the server before deploying changed agents, and a run that would
    fail its replay (or go on differently) is named with the reason. The agents are registered only while it runs.
    Runs are found by their `AgentName` search attribute, or on a namespace without it (or with `by_input=True`) among
    the window's `AgentWorkflow` runs by the agent their input names.
    """
    client = with_encryption(with_data_converter(client))  # the worker's converter: its histories' payloads
    converter = client.data_converter
    runner = AgentWorkflowRunner(workflow_runner(sandboxed=sandboxed), context_free=ignores_contexts(converter))

    def replayer(wrapped: WorkflowRunner) -> Replayer:
        return Replayer(
            workflows=[AgentWorkflow], data_converter=converter, workflow_runner=wrapped, build_id='replayer'
        )

    registered: list[str] = []
    try:
        for name, agent in agents.items():
            register_agent(name, agent)
            registered.append(name)
        return await _check_histories(
            client, agents, replayer, runner=runner, limit=limit, since=since, by_input=by_input
        )
    finally:
        for name in registered:
            release_agent(name)


def _agent_of(entry: Agent[Any, Any] | DurableAgent) -> Agent[Any, Any]:
    return entry.agent if isinstance(entry, DurableAgent) else entry


if __name__ == '__main__':
    # The script is a front door above this module: `python worker.py ARGS` is `agents worker ARGS`.
    from doors.cli._worker_script import worker_script

    worker_script()
