"""Worker processes the benchmark drives: started with `python -m <module>`, asked questions over stdin.

A worker module prints a line starting with `Worker running` once it polls, then answers one line on stdout for
each request line on stdin (`cpu` -> `cpu <seconds>`, and whatever else it offers), and stops when stdin closes.
Its CPU is its own: every thread of the process, the SDK core's included, and nothing of the benchmark's. Like the
worker command, it freezes its start-up heap once its worker runs (`workflows._process.freeze_startup_heap`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path

from temporalio.client import Client

from workflows._process import freeze_startup_heap

from ._support import ROOT, log, within

__all__ = ('WorkerProcess', 'answer_requests', 'connection_args')

Answer = Callable[[], Awaitable[str]]
"""Makes the answer to one request line (without the newline)."""


def connection_args(client: Client) -> tuple[str, ...]:
    """The `--address` and `--namespace` options that reach `client`'s server."""
    return ('--address', client.service_client.config.target_host, '--namespace', client.namespace)


class WorkerProcess:
    """A running worker module, asked for its CPU time (and what else it answers) over stdin."""

    def __init__(self, process: asyncio.subprocess.Process, stderr: Path) -> None:
        self.process = process
        self.stderr = stderr

    @classmethod
    @contextlib.asynccontextmanager
    async def running(cls, module: str, *args: str, label: str) -> AsyncIterator[WorkerProcess]:
        """Start `python -m module *args` and stop it after; `label` names it in errors."""
        with tempfile.TemporaryDirectory(prefix='bench-worker-') as tmp:
            stderr = Path(tmp) / 'worker.log'
            with stderr.open('ab') as err:
                process = await asyncio.create_subprocess_exec(
                    *(sys.executable, '-m', module, *args),
                    cwd=ROOT,
                    env={**os.environ, 'PYTHONPATH': str(ROOT)},
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=err,
                )
            worker = cls(process, stderr)
            try:
                line = await within(60, f'The {label} worker process start-up', worker.readline())
                if not line.startswith('Worker running'):
                    raise RuntimeError(f'The {label} worker process did not start: {worker.tail()}')
                yield worker
            except Exception:
                log.error('%s worker stderr:\n%s', label, worker.tail())
                raise
            finally:
                await worker.stop()

    async def readline(self) -> str:
        assert self.process.stdout is not None
        return (await self.process.stdout.readline()).decode()

    def tail(self) -> str:
        return self.stderr.read_text()[-2000:] if self.stderr.exists() else ''

    async def ask(self, request: str) -> str:
        """Send one request line and return the answer's value (the line after `request `)."""
        assert self.process.stdin is not None
        self.process.stdin.write(f'{request}\n'.encode())
        await self.process.stdin.drain()
        line = await within(30, f'The worker process answer to {request!r}', self.readline())
        if not line.startswith(f'{request} '):
            raise RuntimeError(f'The worker process answered {line!r} to {request!r}: {self.tail()}')
        return line.split(maxsplit=1)[1].strip()

    async def cpu(self) -> float:
        """The process's CPU seconds so far."""
        return float(await self.ask('cpu'))

    async def stop(self) -> None:
        """Close its stdin (it stops), killing it if it does not exit in time."""
        if self.process.returncode is not None:
            return
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 30)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()


async def _cpu() -> str:
    return f'{time.process_time():.6f}'


async def answer_requests(answers: Mapping[str, Answer] | None = None) -> None:
    """The worker side: print `Worker running`, then answer request lines on stdin until it closes.

    `cpu` is always answered (this process's CPU seconds); `answers` adds others. An unknown request gets
    `unknown <request>`.
    """
    handlers: dict[str, Answer] = {'cpu': _cpu, **(answers or {})}
    freeze_startup_heap()  # as the worker command does once its worker runs
    print('Worker running', flush=True)
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        request = line.strip()
        answer = handlers.get(request)
        print(f'{request} {await answer()}' if answer else f'unknown {request}', flush=True)
