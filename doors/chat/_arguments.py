"""The chat command's arguments and their defaults, apart from the server so a command line is built without it.

`agents` builds every subcommand's parser to parse any one of them (and for `--help`): importing the chat server for
that would cost every command the web app, the SDK and the agent runtime.
"""

from __future__ import annotations

import argparse

__all__ = ('DEFAULT_PORT', 'DEFAULT_WORKER_TIMEOUT', 'TOKEN_ENV', 'add_chat_arguments')

TOKEN_ENV = 'CHAT_TOKEN'
"""The environment variable that gives the page's bearer token (a random one is made without it)."""

DEFAULT_PORT = 8000
"""The page's port when `--port` is not given (another free one if it is taken)."""

DEFAULT_WORKER_TIMEOUT = 5.0
"""Seconds a chat request waits for a worker of the task queue to show up, to answer a query or to take an update
before it answers that no worker serves the task queue."""


def add_chat_arguments(parser: argparse.ArgumentParser, *, connection: bool = True) -> None:
    """The chat command's arguments; without `connection`, the caller's parser has the connection flags already.

    Used by `python -m doors.chat` and by `agents chat`, whose global flags (`--address`, `--namespace`, TLS, API
    key, profile, `--task-queue`) take the place of the connection ones.
    """
    parser.add_argument(
        '--agents', nargs='+', action='extend', required=True, metavar='AGENT',
        help='agents to chat with: module:attribute references or spec files; several after one flag, or the flag '
        'repeated: --agents a:x b:y, or --agents a:x --agents b:y',
    )  # fmt: skip
    parser.add_argument('--dev', action='store_true', help='start an embedded Temporal dev server (with Web UI)')
    parser.add_argument('--db', default='temporal-dev.db', help='SQLite file for the embedded dev server')
    if connection:
        parser.add_argument(
            '--address', help='Temporal server address (default $TEMPORAL_ADDRESS, else localhost:7233)'
        )
        parser.add_argument('--namespace', help='Temporal namespace (default $TEMPORAL_NAMESPACE, else default)')
        parser.add_argument('--task-queue', help="task queue of the worker (default: the worker's)")
    parser.add_argument('--host', default='127.0.0.1', help='address the page is served on (default 127.0.0.1)')
    parser.add_argument(
        '--port', type=int, help=f'port the page is served on (default {DEFAULT_PORT}, else a free one; 0: any)'
    )
    parser.add_argument(
        '--allow-host',
        action='append',
        default=[],
        metavar='NAME',
        help='a host name the server answers besides localhost and IP addresses (repeatable; *.example.com for '
        'subdomains): the name browsers and workers reach it by',
    )
    parser.add_argument('--token', help=f"the page's bearer token (default: ${TOKEN_ENV}, else a random one)")
    parser.add_argument(
        '--no-worker',
        action='store_true',
        help='serve the page only; workers started elsewhere publish to it (it prints how)',
    )
    parser.add_argument(
        '--worker-timeout',
        type=float,
        default=DEFAULT_WORKER_TIMEOUT,
        metavar='SECONDS',
        help='how long a request waits for a worker before the page is told none serves the task queue '
        f'(default {DEFAULT_WORKER_TIMEOUT:g})',
    )
    parser.add_argument(
        '--events-token',
        help='the token workers send with their turn events (default: $AGENT_CHAT_EVENTS_TOKEN, else a random one)',
    )
