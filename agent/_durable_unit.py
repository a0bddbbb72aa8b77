"""Marks code that runs inside a durable unit: one recorded step of a durable run, such as an activity.

A durable engine records what a unit returns, not what happens inside it, so whatever a unit does must be safe to
do again when the engine retries it. Waiting for an external event is not: the wait has to be recorded by the run
itself (see `agent.external_events`), so `wait_for_external_event` refuses to wait inside a unit.

The engine enters `durable_unit_scope()` around the body of each unit it runs (a tool call or a model request in
an activity); `wait_for_external_event` enters it around `ask`, which the engine records as a unit of its own. The
mark is a context variable, so it follows the code into the tasks it starts and the worker threads
`run_sync_in_thread` runs sync functions in.
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ('durable_unit_scope', 'in_durable_unit')

_in_durable_unit: ContextVar[bool] = ContextVar('agent_in_durable_unit', default=False)


def in_durable_unit() -> bool:
    """Whether the current code runs inside a durable unit (inside `durable_unit_scope()`)."""
    return _in_durable_unit.get()


@contextmanager
def durable_unit_scope() -> Generator[None]:
    """Mark the code inside as the body of a durable unit, for as long as the block runs."""
    token = _in_durable_unit.set(True)
    try:
        yield
    finally:
        _in_durable_unit.reset(token)
