"""The `agents` command line: its subcommands, and global flags accepted before or after the subcommand.

The global flags live in one parent parser shared by the top level and every subcommand, with suppressed defaults:
a flag given after the subcommand sets the attribute, one given before it is not overwritten by the subcommand's
(absent) default, and `finish` fills in the `None`s after parsing.

The parser is built for every command line, `--help` and usage errors included, so it imports no command's module:
each subcommand's handler is imported when that subcommand runs (`Handler`), and only then does the command load
what it needs (the SDK's client, the agent runtime, a worker).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from doors.chat._arguments import add_chat_arguments

from ._defaults import ANSWER_TIMEOUT, DEV_PORT
from ._identity import IDENTITY_VARIABLE

__all__ = ('GLOBAL_FLAGS', 'Handler', 'build_parser', 'finish')

GLOBAL_FLAGS = (
    'address', 'namespace', 'api_key', 'tls_cert', 'tls_key', 'profile', 'task_queue', 'identity', 'debug'
)  # fmt: skip

DESCRIPTION = """\
Serve durable agents on Temporal, start and steer their runs, answer what waits for a human.

Connection settings come from Temporal's environment configuration, as for the `temporal` CLI:
TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_CLIENT_CERT_PATH / _KEY_PATH,
TEMPORAL_PROFILE and its config file; the flags below override them.
"""


def _global_flags() -> argparse.ArgumentParser:
    flags = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    group = flags.add_argument_group('connection (any position; default: Temporal environment configuration)')
    group.add_argument(
        '--address', metavar='HOST:PORT', help='Temporal frontend (default $TEMPORAL_ADDRESS, else localhost:7233)'
    )
    group.add_argument('--namespace', help='namespace (default $TEMPORAL_NAMESPACE, else default)')
    group.add_argument('--api-key', help='API key, e.g. of Temporal Cloud (default $TEMPORAL_API_KEY); turns TLS on')
    group.add_argument('--tls-cert', metavar='FILE', help='client certificate for mTLS (with --tls-key)')
    group.add_argument('--tls-key', metavar='FILE', help='private key of --tls-cert')
    group.add_argument('--profile', help="profile of the temporal CLI's config file (default $TEMPORAL_PROFILE)")
    group.add_argument('--task-queue', help='task queue of the workers (default agents)')
    group.add_argument(
        '--as', dest='identity', metavar='NAME',
        help=f'who answers: named in decision records, checked by approval rules, and the one `inbox` lists for '
        f"(default ${IDENTITY_VARIABLE}, else the Temporal client's identity, which filters nothing)",
    )  # fmt: skip
    group.add_argument('--debug', action='store_true', help='print the traceback of an error too')
    return flags


PASSTHROUGH_COMMANDS = ('codec',)
"""Commands whose own arguments go, untouched, to the program they run."""


def parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """Parse `argv`, handing everything after a pass-through command's name to that command as `rest`.

    argparse's `REMAINDER` does not take option-like words (`agents codec --port 8081` would be refused), so the
    words after the command's name are split off before parsing.
    """
    for index, word in enumerate(argv):
        head = list(argv[: index + 1])
        if word not in PASSTHROUGH_COMMANDS or {'-h', '--help'} & set(head):
            continue
        with contextlib.redirect_stderr(io.StringIO()):
            try:
                args = parser.parse_args(head)
            except SystemExit:
                continue  # the word was the value of a flag, not the command
        if args.command == word:
            args.rest = list(argv[index + 1 :])
            return finish(args)
    return finish(parser.parse_args(argv))


def finish(args: argparse.Namespace) -> argparse.Namespace:
    """Give every global flag that was not given its default (`None`, or `False` for `--debug`).

    `--as` falls back on `$AGENTS_IDENTITY` where the command connects (`_connect.connect`), so only the commands that
    answer runs read it.
    """
    for name in GLOBAL_FLAGS:
        if not hasattr(args, name):
            setattr(args, name, False if name == 'debug' else None)
    return args


@dataclass(frozen=True)
class Handler:
    """A command's function, `module.function` of this package, imported when the command runs."""

    where: str
    """`module.function`, e.g. `_runs.status_command`."""

    def load(self) -> Callable[[argparse.Namespace], Any]:
        """The function itself (importing its module, and what that module needs)."""
        module, _, name = self.where.rpartition('.')
        return getattr(importlib.import_module(f'{__package__}.{module}'), name)

    def __call__(self, args: argparse.Namespace) -> Any:
        return self.load()(args)


def _run_id(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('workflow_id', help='the workflow id of the run')


def _watch_flags(parser: argparse.ArgumentParser) -> None:
    answers = parser.add_mutually_exclusive_group()
    answers.add_argument('--yes', action='store_true', help='while watching, approve every tool call that asks')
    answers.add_argument(
        '--no-input', action='store_true', help='while watching, never ask: print how to answer approvals instead'
    )
    parser.add_argument('--poll', type=float, default=0.5, help=argparse.SUPPRESS)


def build_parser(prog: str = 'agents') -> argparse.ArgumentParser:
    """The parser of the whole command line; each subcommand sets `handler` (async unless `sync` is set)."""
    shared = _global_flags()
    parser = argparse.ArgumentParser(
        prog=prog, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter, parents=[shared]
    )
    commands = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')

    def command(name: str, help: str, handler: str | None) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help, parents=[shared])
        sub.set_defaults(handler=handler and Handler(handler))
        return sub

    worker = command('worker', 'serve agents (module:attribute references or spec files)', '_serve.worker_command')
    worker.add_argument(
        '--agents', nargs='+', action='extend', required=True, metavar='AGENT',
        help='module:attribute (modules of the current folder) or agent spec files (.yaml, .yml, .json); '
        'several after one flag, or the flag repeated: --agents a:x b:y, or --agents a:x --agents b:y',
    )  # fmt: skip
    worker.add_argument('--dev', action='store_true', help='start an embedded Temporal dev server with its Web UI')
    worker.add_argument('--port', type=int, help=f'with --dev: the frontend port (default {DEV_PORT})')
    worker.add_argument('--ui-port', type=int, help='with --dev: the Web UI port (default the frontend port + 1000)')
    worker.add_argument('--db', default='temporal-dev.db', help='with --dev: SQLite file that keeps the runs')
    worker.add_argument(
        '--graceful-shutdown', type=float, default=10.0, metavar='SECONDS',
        help='on SIGTERM or Ctrl-C, how long running model requests and tool calls may take to finish (default 10)',
    )  # fmt: skip
    worker.add_argument(
        '--unsandboxed', action='store_true',
        help="run workflows outside Temporal's sandbox: less CPU per step, and workflow-side code (hooks, "
        'instructions, validators) is not checked for I/O; for trusted agents only',
    )  # fmt: skip
    worker.add_argument(
        '--workflow-side-errors', choices=['fail', 'retry'], default='fail',
        help='when instructions, a hook, a history processor or an output validator raises (not transient I/O): '
        'fail the run (or the turn; default), or retry until a worker with fixed code resumes it',
    )  # fmt: skip
    worker.add_argument(
        '--prometheus-address', metavar='HOST:PORT',
        help="serve Temporal's worker metrics for Prometheus at http://HOST:PORT/metrics",
    )  # fmt: skip
    worker.add_argument(
        '--deployment', metavar='NAME',
        help='join this Temporal worker deployment (Worker Versioning): runs stay on the version that started them, '
        'conversations move to the current one between turns; `agents deploy` makes a version current',
    )  # fmt: skip
    worker.add_argument(
        '--build-id', metavar='ID', help='with --deployment: the version (default: a hash of the code the worker runs)'
    )
    worker.add_argument(
        '--chat-events-url', metavar='URL',
        help="publish each turn's live events to this chat server endpoint (default $AGENT_CHAT_EVENTS_URL), with "
        'the token in $AGENT_CHAT_EVENTS_TOKEN; `agents chat --no-worker` prints both',
    )  # fmt: skip

    check = command(
        'replay-check', "replay the agents' recent runs against their code here: which a deploy would break",
        '_replay_check.replay_check_command',
    )  # fmt: skip
    check.add_argument(
        '--agents', nargs='+', action='extend', required=True, metavar='AGENT',
        help='module:attribute (modules of the current folder) or agent spec files, as for `agents worker`',
    )  # fmt: skip
    check.add_argument('--since', default='24h', help='runs started within this long (default 24h; e.g. 30m, 7d)')
    check.add_argument('--limit', type=int, default=20, help='runs per agent, newest first (default 20)')
    check.add_argument('--strict', action='store_true', help='exit 1 also when a run would go on differently')
    check.add_argument('--unsandboxed', action='store_true', help='replay as `agents worker --unsandboxed` runs')

    demo = command('demo', 'the end-to-end demo on an embedded dev server (no API key needed)', '_serve.demo_command')
    demo.add_argument(
        'mode', nargs='?', choices=['ask', 'approve', 'deny', 'chat'], default='ask', help='chat: the chat page instead'
    )
    demo.add_argument('--model', help="a real model for the demo agent, e.g. 'openai:gpt-5.2'")

    chat = command('chat', 'the chat page over durable conversations (and their worker)', '_serve.chat_command')
    add_chat_arguments(chat, connection=False)  # the global flags connect it

    for name, handler, what in (
        (
            'codec',
            '_serve.codec_command',
            'the codec endpoint for the Web UI (arguments of python -m deploy.codec_server)',
        ),
    ):
        sub = command(name, what, handler)
        sub.add_argument('rest', nargs=argparse.REMAINDER, help='its own arguments')
        sub.set_defaults(sync=True)

    run = command('run', 'start a run of an agent and print its workflow id', '_runs.run_command')
    run.add_argument('agent', help='the registered name of the agent')
    run.add_argument('prompt', nargs='?', help='the user prompt')
    run.add_argument('--workflow-id', help='the workflow id to give the run (default: generated)')
    run.add_argument('--input', help='more AgentRunInput fields, as a JSON object (e.g. \'{"owner": "alice"}\')')
    run.add_argument(
        '--watch', action='store_true',
        help='follow the run as it happens (model requests, tool calls, approvals at the prompt), then its output',
    )  # fmt: skip
    _watch_flags(run)

    watch = command(
        'watch', 'follow a run as it happens, answer its approvals at the prompt, then print its output',
        '_runs.watch_command',
    )  # fmt: skip
    _run_id(watch)
    _watch_flags(watch)

    inbox = command('inbox', 'list every run waiting for a human, with its pending tool calls', '_runs.inbox_command')
    inbox.add_argument('--owner', help='only runs whose input names this owner')

    _run_id(command('pending', 'the tool calls a run waits for', '_runs.pending_command'))
    for name, what in (('approve', 'approve pending tool calls'), ('deny', 'deny pending tool calls')):
        sub = command(name, what, '_runs.approve_command')
        _run_id(sub)
        sub.add_argument('tool_call_ids', nargs='+', metavar='TOOL_CALL_ID')
        if name == 'deny':
            sub.add_argument('--reason', '--message', default='The tool call was denied.', help='told to the model')
        sub.add_argument(
            '--timeout', type=float, default=ANSWER_TIMEOUT, metavar='SECONDS',
            help='how long to wait for a worker of the run (default %(default)g); without one the answer is recorded '
            'in the run to apply once a worker picks it up, and the exit status is 1',
        )  # fmt: skip
    answer = command(
        'answer', 'resolve a wait for an external event (RequestInput) by its resume token, or fail it',
        '_tokens.answer_command',
    )  # fmt: skip
    answer.add_argument('token', help='the resume token the run handed out (agents status lists the pending ones)')
    answering = answer.add_mutually_exclusive_group(required=True)
    answering.add_argument(
        '--json', metavar='JSON',
        help="the answer as JSON (for RequestInput, DeferredToolResults: '{\"approvals\": {\"<id>\": true}}'); "
        "'-' reads it from stdin",
    )  # fmt: skip
    answering.add_argument('--fail', metavar='REASON', help='end the wait without an answer, telling the model why')
    answer.add_argument(
        '--caller', metavar='NAME',
        help='who answers: recorded by the run, and credited in answered_by (default: --as)',
    )  # fmt: skip
    answer.add_argument(
        '--timeout', type=float, default=ANSWER_TIMEOUT, metavar='SECONDS',
        help='how long to wait for a worker of the run (default %(default)g); without one the answer is recorded '
        'in the run to apply once a worker picks it up, and the exit status is 1',
    )  # fmt: skip
    _run_id(command('status', "a run's state, step and usage", '_runs.status_command'))
    _run_id(command('result', "wait for a run's output and print it as JSON", '_runs.result_command'))

    schedule = command('schedule', 'schedules that start agent runs', None)
    actions = schedule.add_subparsers(dest='action', required=True, metavar='ACTION')
    create = actions.add_parser('create', help='start runs of an agent on a schedule', parents=[shared])
    create.set_defaults(handler=Handler('_schedule.schedule_create'))
    create.add_argument('schedule_id')
    create.add_argument('agent', help='the registered name of the agent')
    create.add_argument('prompt', nargs='?', help='the user prompt of each run')
    create.add_argument('--every', help='an interval: 90s, 30m, 24h, 7d, 1h30m')
    create.add_argument('--cron', help='a cron expression, e.g. "0 9 * * *"')
    create.add_argument('--input', help='more AgentRunInput fields, as a JSON object')
    create.add_argument('--paused', action='store_true', help='create it paused')
    listing = actions.add_parser('list', help='list them', parents=[shared])
    listing.set_defaults(handler=Handler('_schedule.schedule_list'))
    delete = actions.add_parser('delete', help='delete one (its runs go on)', parents=[shared])
    delete.set_defaults(handler=Handler('_schedule.schedule_delete'))
    delete.add_argument('schedule_id')
    deploy = command('deploy', "a versioned worker deployment's versions, and which takes new runs", None)
    steps = deploy.add_subparsers(dest='action', required=True, metavar='ACTION')
    for name, handler, what in (
        ('status', 'deploy_status', 'its versions: current, ramping, draining or drained, and the open runs of each'),
        ('set-current', 'deploy_set_current', 'make a version current: new runs start on it'),
        ('ramp', 'deploy_ramp', 'send a share of new runs to a version'),
        ('stop-ramp', 'deploy_stop_ramp', 'send every new run to the current version again'),
    ):
        step = steps.add_parser(name, help=what, description=what, parents=[shared])
        step.set_defaults(handler=Handler(f'_deploy.{handler}'))
        step.add_argument('--deployment', metavar='NAME', help="the deployment (default: the namespace's only one)")
        if name in ('set-current', 'ramp'):
            step.add_argument('build_id', metavar='BUILD_ID', help='the version (`agents deploy status` lists them)')
        if name == 'ramp':
            step.add_argument('percent', metavar='PERCENT', type=float, help='the share of new runs, 0 to 100')
    return parser
