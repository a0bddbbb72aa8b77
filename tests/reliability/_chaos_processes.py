"""The processes of the chaos test: a dev server it can kill and restart on the same database, and worker
subprocesses; plus the O_APPEND log that the tool bodies and the test write to."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest
from temporalio.client import Client

from worker import DEV_SERVER_TIMER_FLOOR, temporal_cli_path

ROOT = Path(__file__).parent.parent.parent
POLL = 0.05
"""Seconds between looks at what another process writes (there is no event to await across processes)."""


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


async def kill(process: asyncio.subprocess.Process) -> None:
    """SIGKILL `process` (if it still runs) and reap it."""
    if process.returncode is None:
        process.send_signal(signal.SIGKILL)
    await asyncio.wait_for(process.wait(), 10)


class DevServer:
    """The `temporal` dev server as a subprocess on a fixed port and SQLite file, so it can die and come back."""

    def __init__(self, database: Path, output: Path) -> None:
        self.database = database
        self.output = output
        self.port = free_port()
        self.http_port = free_port()
        self.process: asyncio.subprocess.Process | None = None
        self._served = False

    @property
    def address(self) -> str:
        """Where clients and workers connect."""
        return f'127.0.0.1:{self.port}'

    async def start(self) -> None:
        """Start the server (with `worker.start_dev_server`'s timer setting) and wait until it serves.

        A port chosen here may be taken by another process before the server binds it, and the server exits: its
        first start then moves to new ports (up to three times). A restart keeps the ports clients know.
        """
        attempts = 1 if self._served else 3
        for attempt in range(1, attempts + 1):
            await self._spawn()
            if await asyncio.wait_for(self._serving(), 30):
                self._served = True
                return
            if attempt == attempts:
                raise AssertionError(self.output.read_text()[-2000:])
            self.port, self.http_port = free_port(), free_port()

    async def _spawn(self) -> None:
        with self.output.open('ab') as output:
            self.process = await asyncio.create_subprocess_exec(
                temporal_cli_path(),
                'server',
                'start-dev',
                '--headless',
                '--ip',
                '127.0.0.1',
                '--port',
                str(self.port),
                '--http-port',
                str(self.http_port),
                '--db-filename',
                str(self.database),
                '--log-level',
                'error',
                '--dynamic-config-value',
                f'history.timerProcessorMaxTimeShift="{DEV_SERVER_TIMER_FLOOR}"',
                stdout=output,
                stderr=output,
            )

    async def _serving(self) -> bool:
        """`True` once the server serves the default namespace; `False` if it exited first."""
        while True:
            assert self.process is not None
            if self.process.returncode is not None:
                return False
            try:
                client = await asyncio.wait_for(Client.connect(self.address), 2)
                await client.workflow_service.describe_namespace(DescribeNamespaceRequest(namespace='default'))
                return True
            except Exception:  # not listening yet, or not ready to serve the namespace
                await asyncio.sleep(POLL)

    async def kill(self) -> None:
        """SIGKILL the server: whatever it has not written to its database is lost, as in a crash."""
        if self.process is not None:
            await kill(self.process)


async def spawn_worker(address: str, task_queue: str, log: Path, output: Path) -> asyncio.subprocess.Process:
    """A `worker.py` subprocess serving the chaos agent, writing its output to `output`."""
    with output.open('ab') as out:
        return await asyncio.create_subprocess_exec(
            sys.executable,
            str(ROOT / 'worker.py'),
            '--agents',
            'tests.reliability.chaos_agent:chaos_agent',
            '--address',
            address,
            '--task-queue',
            task_queue,
            cwd=ROOT,
            env={**os.environ, 'CHAOS_LOG': str(log), 'PYTHONPATH': str(ROOT)},
            stdout=out,
            stderr=out,
        )


async def polling(process: asyncio.subprocess.Process, output: Path) -> None:
    """Wait until the worker `process` says it runs (callers bound the wait)."""
    while 'Worker running' not in (text := output.read_text()):  # noqa: ASYNC240 (a small file of the test)
        assert process.returncode is None, text[-2000:]
        await asyncio.sleep(POLL)


@dataclass(frozen=True)
class Line:
    """One line of the tool log: a tool body starting or ending, or a mark the test wrote."""

    index: int
    """Position in the log (the order the writes happened in)."""
    event: str
    """`start`, `end`, or `mark`."""
    tool: str = ''
    """The tool (for `start` and `end`)."""
    run: str = ''
    """The run's prompt (for `start` and `end`)."""
    call: str = ''
    """The tool call id, or the mark's name."""
    pid: int = 0
    """The worker process that ran the tool body."""
    time: float = 0.0
    """When it was written (Unix time)."""


class ToolLog:
    """The log the tool bodies of every worker append to, followed as it grows by one task (`follow`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.touch()
        self.lines: list[Line] = []
        """Every line read so far."""
        self.ended: set[str] = set()
        """The tool call ids with an `end` line so far."""
        self._offset = 0
        self._grown = asyncio.Condition()

    def mark(self, name: str) -> None:
        """Append a mark: tool lines above it were written before the test wrote it."""
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, f'mark {name} {time.time():.6f}\n'.encode())
        finally:
            os.close(fd)

    def read(self) -> bool:
        """Take in the complete lines written since the last read; whether there were any."""
        with self.path.open('rb') as file:
            file.seek(self._offset)
            data = file.read()
        complete = data[: data.rfind(b'\n') + 1]
        self._offset += len(complete)
        for text in complete.decode().splitlines():
            event, *fields = text.split()
            if event == 'mark':
                name, at = fields
                self.lines.append(Line(len(self.lines), event, call=name, time=float(at)))
                continue
            tool, run, call, pid, at = fields
            self.lines.append(Line(len(self.lines), event, tool, run, call, int(pid), float(at)))
            if event == 'end':
                self.ended.add(call)
        return bool(complete)

    async def follow(self) -> None:
        """Read the log as it grows (until cancelled), waking the waiters of `wait_for`."""
        while True:
            if self.read():
                async with self._grown:
                    self._grown.notify_all()
            await asyncio.sleep(POLL)

    async def wait_for(self, condition: Callable[[ToolLog], bool]) -> None:
        """Wait until `condition` holds for the log as read so far (`follow` must be running; callers bound it)."""
        async with self._grown:
            await self._grown.wait_for(lambda: condition(self))
