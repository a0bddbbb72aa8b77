"""The `agents` command imports what the command it runs needs, when it runs; packages export their names lazily.

Every `agents` command is a new process: parsing a command line or printing `--help` used to import the agent runtime,
Temporal's SDK and worker, and OpenTelemetry first (over a second of CPU per command).
"""

from __future__ import annotations

import importlib
import inspect
import socket
import subprocess
import sys
from types import ModuleType

import pytest

import activities
import doors.chat
import workflows
from doors.cli._parser import Handler, build_parser, parse

HEAVY = ('activities', 'agent', 'httpx2', 'mcp', 'opentelemetry', 'pydantic', 'temporalio', 'worker')
"""Top-level packages that a command line is parsed without."""

SERVING = (
    'starlette',
    'uvicorn',
    'worker',
    'workflows._agent_workflow',
    'doors.chat.__main__',
    'doors.chat._backend',
)
"""Modules of the commands that serve (a worker and the workflow it runs, the chat page), which the others never
need: the client calls the workflow by name."""

COMMAND_LINES = (
    ('worker', '--agents', 'myapp.agents:support', '--dev'),
    ('demo', 'approve'),
    ('chat', '--agents', 'myapp.agents:support', '--no-worker'),
    ('codec', '--port', '8081'),
    ('run', 'support', 'Clean up', '--watch', '--yes'),
    ('watch', 'w-1', '--no-input'),
    ('inbox', '--owner', 'alice'),
    ('pending', 'w-1'),
    ('approve', 'w-1', 'call-1', '--timeout', '3'),
    ('deny', 'w-1', 'call-1', '--reason', 'No.'),
    ('answer', 'ev1.WyJ3IiwiciIsImsuMSJd', '--json', '{"approvals": {}}', '--caller', 'alice'),
    ('answer', 'ev1.WyJ3IiwiciIsImsuMSJd', '--fail', 'Not now.'),
    ('status', 'w-1'),
    ('result', 'w-1'),
    ('schedule', 'create', 'nightly', 'support', 'Report', '--every', '24h'),
    ('schedule', 'list'),
    ('schedule', 'delete', 'nightly'),
    ('replay-check', '--agents', 'myapp.agents:support', '--since', '7d', '--strict'),
)
"""One command line of each subcommand."""


def test_parsing_every_command_line_and_help_imports_neither_the_runtime_nor_the_sdk() -> None:
    script = f"""
import contextlib, io, sys
from doors.cli import run
from doors.cli._parser import build_parser, parse
for argv in {COMMAND_LINES!r}:
    parse(build_parser(), list(argv))
with contextlib.redirect_stdout(io.StringIO()) as help:
    assert run(['--help']) == 0
assert 'schedule' in help.getvalue()
print(' '.join(sorted({{name.partition('.')[0] for name in sys.modules}} & set({HEAVY!r}))))
"""
    done = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == '\n'


def test_a_command_that_talks_to_a_server_loads_neither_the_worker_the_workflow_nor_the_chat_server() -> None:
    with socket.socket() as probe:  # a port nothing listens on: the command fails to connect, as it would for real
        probe.bind(('127.0.0.1', 0))
        address = f'127.0.0.1:{probe.getsockname()[1]}'
    script = f"""
import sys
from workflows._process import exit_process
from doors.cli import run
assert run(['status', 'no-such-run', '--address', {address!r}]) == 1
print(' '.join(sorted(name for name in sys.modules if name in {SERVING!r})))
exit_process(0)  # as the command does: the SDK's native threads can abort a finalizing interpreter
"""
    done = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert 'No Temporal server answers' in done.stderr
    assert done.stdout == '\n'


@pytest.mark.parametrize('argv', COMMAND_LINES, ids=' '.join)
def test_each_command_runs_a_function_of_its_module(argv: tuple[str, ...]) -> None:
    handler = parse(build_parser(), list(argv)).handler
    assert isinstance(handler, Handler)
    function = handler.load()
    assert inspect.isfunction(function)
    assert f'{function.__module__}.{function.__name__}' == f'doors.cli.{handler.where}'


@pytest.mark.parametrize('package', [workflows, doors.chat, activities], ids=lambda p: p.__name__)
def test_every_lazily_exported_name_is_the_one_its_module_defines(package: ModuleType) -> None:
    homes: dict[str, str] = vars(package)['_HOME']
    assert sorted(homes) == sorted(package.__all__)
    for name, module in homes.items():
        assert getattr(package, name) is getattr(importlib.import_module(f'{package.__name__}.{module}'), name)
    assert set(package.__all__) <= set(dir(package))
    with pytest.raises(AttributeError, match='no_such_name'):
        _ = package.no_such_name
