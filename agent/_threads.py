"""Running synchronous callables without blocking the event loop.

Sync tool functions (and other sync user callbacks) are run in a worker thread. By default that is anyio's
thread pool; `use_thread_executor` lets a caller route them to an executor of its own for the duration of a
`with` block, e.g. to bound how many run at once or to keep them off a shared pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
from collections.abc import Awaitable, Callable, Generator
from concurrent.futures import Executor
from typing import Any, TypeVar, cast

import anyio.to_thread

__all__ = ('INLINE', 'call_maybe_async', 'is_async_callable', 'run_sync_in_thread', 'use_thread_executor')

T = TypeVar('T')


class _InlineExecutor(Executor):
    """Marks code that must call sync functions in place (a deterministic workflow has no threads)."""

    def __repr__(self) -> str:
        return 'INLINE'


INLINE: Executor = _InlineExecutor()
"""Pass to `use_thread_executor` to run sync callables inline instead of in a thread."""

_thread_executor: contextvars.ContextVar[Executor | None] = contextvars.ContextVar(
    'agent_thread_executor', default=None
)


async def run_sync_in_thread(func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run a synchronous callable in a worker thread and return its result.

    The current `contextvars` context is copied into the thread, so context variables set by the caller
    are visible to `func`.

    Args:
        func: The synchronous callable to run.
        *args: Positional arguments for `func`.
        **kwargs: Keyword arguments for `func`.

    Returns:
        Whatever `func` returns.
    """
    executor = _thread_executor.get()
    if executor is INLINE:
        return func(*args, **kwargs)
    context = contextvars.copy_context()

    def run_in_context() -> T:
        return context.run(func, *args, **kwargs)

    if executor is not None:
        return await asyncio.get_running_loop().run_in_executor(executor, run_in_context)
    return await anyio.to_thread.run_sync(run_in_context)


@contextlib.contextmanager
def _thread_executor_scope(executor: Executor | None) -> Generator[None]:
    token = _thread_executor.set(executor)
    try:
        yield
    finally:
        # Closed from another context (an evicted workflow's coroutine is closed by the worker): that
        # context is being discarded, so there is nothing to restore.
        with contextlib.suppress(ValueError):
            _thread_executor.reset(token)


def use_thread_executor(executor: Executor | None) -> contextlib.AbstractContextManager[None]:
    """Use `executor` for `run_sync_in_thread` calls made within the returned context manager.

    The setting is stored in a context variable, so it applies to the current task and to tasks created
    inside the block, and is undone on exit. Passing `None` restores the default (anyio's thread pool).

    Args:
        executor: The executor to run sync callables on, or `None` for the default.

    Returns:
        A context manager that installs the executor while it is active.
    """
    return _thread_executor_scope(executor)


def is_async_callable(obj: Any) -> bool:
    """Return whether calling `obj` returns an awaitable that should be awaited.

    True for coroutine functions (and bound methods of them), objects whose `__call__` is a coroutine
    function, and `functools.partial` wrappers around any of these.
    """
    while isinstance(obj, functools.partial):
        obj = cast('functools.partial[Any]', obj).func
    if inspect.iscoroutinefunction(obj):
        return True
    # A class is callable, but calling it constructs an instance rather than running `__call__`.
    if isinstance(obj, type):
        return False
    call = getattr(obj, '__call__', None)  # noqa: B004 - we need the attribute itself, not callable()
    return call is not None and inspect.iscoroutinefunction(call)


async def call_maybe_async(func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """Call `func`, awaiting it if it is async and running it in a worker thread if it is sync.

    Args:
        func: The callable to call.
        *args: Positional arguments for `func`.
        **kwargs: Keyword arguments for `func`.

    Returns:
        The (awaited) result of `func`.
    """
    if is_async_callable(func):
        return await cast('Callable[..., Awaitable[Any]]', func)(*args, **kwargs)
    return await run_sync_in_thread(func, *args, **kwargs)
