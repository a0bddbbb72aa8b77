"""Concurrency limits: at most `max_running` operations at once, the rest waiting (up to `max_queued` of them).

```python
from agent.concurrency import ConcurrencyLimiter
from agent.models.concurrency import limit_model_concurrency

shared = ConcurrencyLimiter(max_running=4, max_queued=100, name='openai')
model = limit_model_concurrency('test', shared)
```

A limiter is shared by passing the same instance to several models. Past `max_queued` waiting callers, the next one
fails at once with `ConcurrencyLimitExceeded` instead of waiting (back-pressure rather than an unbounded queue).
Subclass `AbstractConcurrencyLimiter` to limit across processes (e.g. with a shared store).

In a durable worker, model requests run as activities, so the worker's activity slots already bound concurrency
per worker; a limiter bounds it per model (or per limiter shared by several models) inside that.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import AsyncGenerator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import TypeAlias

import anyio
from opentelemetry.trace import Tracer, get_tracer

from .exceptions import ConcurrencyLimitExceeded, UserError

__all__ = (
    'AbstractConcurrencyLimiter',
    'AnyConcurrencyLimit',
    'ConcurrencyLimit',
    'ConcurrencyLimiter',
    'get_concurrency_context',
    'limiter_slot',
    'normalize_to_limiter',
)


class AbstractConcurrencyLimiter(ABC):
    """Something that admits a bounded number of operations at once: `acquire` before, `release` after."""

    @abstractmethod
    async def acquire(self, source: str) -> None:
        """Wait for a slot.

        Args:
            source: Who is asking (e.g. `'model:gpt-5'`), for logs and errors.

        Raises:
            ConcurrencyLimitExceeded: when the limiter refuses to queue another waiter.
        """
        raise NotImplementedError

    @abstractmethod
    def release(self) -> None:
        """Give back a slot taken by `acquire`."""
        raise NotImplementedError


@dataclass
class ConcurrencyLimit:
    """A limit as data: how many operations may run at once and how many may wait."""

    max_running: int
    """The most operations running at once."""
    max_queued: int | None = None
    """The most operations waiting for a slot; `None` means no bound. One more raises `ConcurrencyLimitExceeded`."""


class ConcurrencyLimiter(AbstractConcurrencyLimiter):
    """An in-process limiter: `max_running` slots and an optional bound on the waiters."""

    def __init__(
        self,
        max_running: int,
        *,
        max_queued: int | None = None,
        name: str | None = None,
        tracer: Tracer | None = None,
    ) -> None:
        """Create a limiter.

        Args:
            max_running: The most operations running at once.
            max_queued: The most operations waiting for a slot; `None` means no bound.
            name: A name for errors and logs, useful when the limiter is shared.
            tracer: The OpenTelemetry tracer for the spans recording a wait (the global one if not given).

        Raises:
            UserError: `max_running` is below 1 or `max_queued` is negative.
        """
        if max_running < 1:
            raise UserError(f'max_running must be at least 1, got {max_running}.')
        if max_queued is not None and max_queued < 0:
            raise UserError(f'max_queued must be zero or more, got {max_queued}.')
        self._max_running = max_running
        self._max_queued = max_queued
        self._name = name
        self._tracer = tracer
        self._running = 0
        # Waiters in arrival order; `release` hands its slot straight to the first one, so a slot is never
        # taken by a newcomer while someone is waiting.
        self._waiters: deque[anyio.Event] = deque()

    @classmethod
    def from_limit(
        cls, limit: int | ConcurrencyLimit, *, name: str | None = None, tracer: Tracer | None = None
    ) -> ConcurrencyLimiter:
        """A limiter for `limit`: a number of running operations, or a `ConcurrencyLimit`."""
        if isinstance(limit, int):
            return cls(limit, name=name, tracer=tracer)
        return cls(limit.max_running, max_queued=limit.max_queued, name=name, tracer=tracer)

    def _get_tracer(self) -> Tracer:
        # Looked up at each wait rather than at construction, so a tracer provider set up later is used.
        return self._tracer if self._tracer is not None else get_tracer('agent')

    @property
    def name(self) -> str | None:
        """The limiter's name, if given."""
        return self._name

    @property
    def max_running(self) -> int:
        """The most operations running at once."""
        return self._max_running

    @property
    def running_count(self) -> int:
        """Operations holding a slot now."""
        return self._running

    @property
    def waiting_count(self) -> int:
        """Operations waiting for a slot now."""
        return len(self._waiters)

    @property
    def available_count(self) -> int:
        """Free slots now."""
        return self._max_running - self._running

    async def acquire(self, source: str) -> None:
        """Wait for a slot (at once if one is free).

        Raises:
            ConcurrencyLimitExceeded: `max_queued` callers are already waiting.
        """
        if self._running < self._max_running and not self._waiters:
            self._running += 1
            return
        if self._max_queued is not None and len(self._waiters) >= self._max_queued:
            label = f' {self._name!r}' if self._name else ''
            raise ConcurrencyLimitExceeded(
                f'Concurrency limiter{label} is full for {source}: {self._running} running and '
                f'{len(self._waiters)} waiting (max_queued={self._max_queued}).'
            )
        granted = anyio.Event()
        self._waiters.append(granted)
        # Only a wait gets a span: it shows where a run stood still, and a free slot costs nothing worth tracing.
        attributes: dict[str, str | int] = {
            'source': source,
            'waiting_count': len(self._waiters),
            'max_running': self._max_running,
        }
        if self._name is not None:
            attributes['limiter_name'] = self._name
        if self._max_queued is not None:
            attributes['max_queued'] = self._max_queued
        try:
            with self._get_tracer().start_as_current_span(
                f'waiting for {self._name or source} concurrency', attributes=attributes
            ):
                await granted.wait()
        except BaseException:
            # Cancelled while waiting: leave the queue, or pass on a slot that was handed over meanwhile.
            if granted.is_set():
                self.release()
            else:
                self._waiters.remove(granted)
            raise

    def release(self) -> None:
        """Give back a slot: to the first waiter if there is one."""
        if self._waiters:
            self._waiters.popleft().set()
        else:
            self._running -= 1

    def __repr__(self) -> str:
        return (
            f'ConcurrencyLimiter(max_running={self._max_running}, max_queued={self._max_queued}, name={self._name!r})'
        )


AnyConcurrencyLimit: TypeAlias = 'int | ConcurrencyLimit | AbstractConcurrencyLimiter | None'
"""A limit in any accepted form: a number of running operations, a `ConcurrencyLimit`, a limiter, or none."""


def normalize_to_limiter(limit: AnyConcurrencyLimit, *, name: str | None = None) -> AbstractConcurrencyLimiter | None:
    """The limiter for `limit` (`None` for no limit)."""
    if limit is None or isinstance(limit, AbstractConcurrencyLimiter):
        return limit
    return ConcurrencyLimiter.from_limit(limit, name=name)


@asynccontextmanager
async def limiter_slot(limiter: AbstractConcurrencyLimiter | None, source: str) -> AsyncGenerator[None]:
    """Hold a slot of `limiter` (if any) for the duration of the block."""
    if limiter is None:
        yield
        return
    await limiter.acquire(source)
    try:
        yield
    finally:
        limiter.release()


def get_concurrency_context(
    limiter: AbstractConcurrencyLimiter | None, source: str = 'unnamed'
) -> AbstractAsyncContextManager[None]:
    """An async context manager holding a slot of `limiter` while it is entered (doing nothing for `None`).

    `source` names who holds the slot (e.g. `'agent:support'`), for limiters that report it.
    """
    return limiter_slot(limiter, source)
