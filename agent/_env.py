"""The single place where the runtime reads the clock or produces random identifiers.

An agent run normally uses the wall clock and random ids. Inside a durable workflow both must be
reproducible on replay, so the workflow installs its own `RunEnvironment` (backed by the workflow's
deterministic clock and random source) for the duration of the run. Nothing else in `agent/` may
call `datetime.now()`, `uuid.uuid4()` or `random`: go through `now_utc()` and `new_id()` instead.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Generator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime

__all__ = ('RunEnvironment', 'name_based_uuid', 'new_id', 'now_utc', 'use_environment', 'uuid7')


def _system_now() -> datetime:
    return datetime.now(tz=UTC)


def _system_random_bits(n_bits: int) -> int:
    n_bytes = (n_bits + 7) // 8
    return int.from_bytes(os.urandom(n_bytes), 'big') >> (n_bytes * 8 - n_bits)


@dataclass(frozen=True)
class RunEnvironment:
    """Sources of time and randomness used by a run.

    Replace both to make a run reproducible (a durable workflow binds them to its deterministic clock
    and seeded random source).
    """

    now: Callable[[], datetime] = _system_now
    """Returns the current time as an aware UTC datetime."""
    random_bits: Callable[[int], int] = _system_random_bits
    """Returns a non-negative integer with the given number of random bits."""


_SYSTEM_ENVIRONMENT = RunEnvironment()
_environment: ContextVar[RunEnvironment] = ContextVar('agent_run_environment', default=_SYSTEM_ENVIRONMENT)


@contextmanager
def use_environment(environment: RunEnvironment) -> Generator[None, None, None]:
    """Install `environment` for the current context (and tasks started from it)."""
    token = _environment.set(environment)
    try:
        yield
    finally:
        # Closed from another context (an evicted workflow's coroutine is closed by the worker): that
        # context is being discarded, so there is nothing to restore.
        with contextlib.suppress(ValueError):
            _environment.reset(token)


def now_utc() -> datetime:
    """The current time, from the active `RunEnvironment`."""
    return _environment.get().now()


def uuid7() -> str:
    """A UUIDv7 string: time-ordered, from the active environment's clock and random source."""
    env = _environment.get()
    millis = int(env.now().timestamp() * 1000) & ((1 << 48) - 1)
    rand_a = env.random_bits(12)
    rand_b = env.random_bits(62)
    value = (millis << 80) | (0x7 << 76) | (rand_a << 64) | (0b10 << 62) | rand_b
    return str(uuid.UUID(int=value))


def name_based_uuid(name: str) -> str:
    """A UUID derived from `name` alone (UUIDv5), so the same name always gives the same id."""
    return str(uuid.uuid5(uuid.NAMESPACE_OID, name))


def new_id(prefix: str = '') -> str:
    """A short random identifier (e.g. for tool call ids), from the active environment."""
    bits = _environment.get().random_bits(96)
    return f'{prefix}{bits:024x}'
