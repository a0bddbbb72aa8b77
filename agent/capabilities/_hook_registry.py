"""How `Hooks` registers functions: the `hooks.on` decorators, their options, and the names hook points go by.

Every hook point answers to its `AbstractCapability` method name (`wrap_model_request`, `on_tool_execute_error`)
and, where Pydantic AI's `Hooks` uses a shorter one, to that too: a `wrap_*` point drops the prefix
(`hooks.on.model_request`), an `on_*_error` point drops the `on_` (`hooks.on.model_request_error`), and
`handle_deferred_tool_calls` is `deferred_tool_calls`. Both spellings register into the same list, so their
functions compose in registration order. `event` is a point of `Hooks` only: a function called with each event
of the run's stream, returning the event to pass on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast, overload

from agent._threads import call_maybe_async, is_async_callable
from agent._tool import AgentDepsT, ToolSelector
from agent.exceptions import UserError

from ._abstract import HOOK_NAMES

__all__ = ('EVENT_POINT', 'POINTS', 'HookRegistry', 'HookTimeoutError', 'Registered', 'add_hook', 'hook_point')

HookFuncT = TypeVar('HookFuncT', bound=Callable[..., Any])

EVENT_POINT = 'on_event'
"""The per-event point of `Hooks` (registered as `hooks.on.event` or `Hooks(event=...)`)."""

POINTS: tuple[str, ...] = (*HOOK_NAMES, EVENT_POINT)
"""Every point a `Hooks` instance keeps functions for."""

SHORT_NAMES: dict[str, str] = {
    **{name.removeprefix('wrap_'): name for name in HOOK_NAMES if name.startswith('wrap_')},
    **{name.removeprefix('on_'): name for name in HOOK_NAMES if name.startswith('on_')},
    'deferred_tool_calls': 'handle_deferred_tool_calls',
    'event': EVENT_POINT,
}
"""Pydantic AI's short decorator and keyword names, mapped to the hook points they stand for."""

_TOOL_HOOKS = frozenset(name for name in HOOK_NAMES if '_tool_validate' in name or '_tool_execute' in name)


def hook_point(name: str) -> str:
    """The hook point `name` stands for (a point name or a short name).

    Raises:
        UserError: for a name that is neither.
    """
    point = SHORT_NAMES.get(name, name)
    if point not in POINTS:
        raise UserError(f'Unknown hook point {name!r}; valid hook points are: {", ".join(POINTS)}')
    return point


class HookTimeoutError(TimeoutError):
    """A hook function did not finish within the `timeout` it was registered with."""

    hook_name: str
    """The hook point."""
    func_name: str
    """The function's name."""
    timeout: float
    """The timeout, in seconds."""

    def __init__(self, hook_name: str, func_name: str, timeout: float) -> None:
        self.hook_name, self.func_name, self.timeout = hook_name, func_name, timeout
        super().__init__(f'Hook function {func_name!r} for {hook_name!r} did not finish within {timeout} seconds')


@dataclass(frozen=True)
class Registered:
    """One function registered for one hook point, with its options."""

    point: str
    """The hook point."""
    func: Callable[..., Any]
    """The function."""
    timeout: float | None
    """Seconds one call may take, or `None`."""
    tools: ToolSelector[Any]
    """The tools the function applies to (tool points only)."""

    async def call(self, *args: Any, **kwargs: Any) -> Any:
        """Call the function (sync ones in a worker thread), bounded by the timeout.

        Raises:
            HookTimeoutError: if the call took longer than the timeout.
        """
        if self.timeout is None:
            return await call_maybe_async(self.func, *args, **kwargs)
        scope = asyncio.timeout(self.timeout)
        try:
            async with scope:
                return await call_maybe_async(self.func, *args, **kwargs)
        except TimeoutError as error:
            if not scope.expired():  # the function raised `TimeoutError` itself
                raise
            name = getattr(self.func, '__name__', repr(self.func))
            raise HookTimeoutError(self.point, name, self.timeout) from error


def add_hook(
    entries: dict[str, list[Registered]],
    point: str,
    func: Callable[..., Any],
    *,
    timeout: float | None = None,
    tools: ToolSelector[Any] = 'all',
) -> None:
    """Register `func` for `point` (a point name, not a short name).

    Raises:
        UserError: if `func` cannot serve that point with these options.
    """
    if not callable(func):
        raise UserError(f'A {point!r} hook must be a function, got {func!r}')
    if timeout is not None and (point == 'wrap_run_event_stream' or timeout <= 0):
        raise UserError(f'Invalid timeout {timeout!r} for {point!r}: it takes a positive number of seconds')
    if point.startswith('wrap_') and point != 'wrap_run_event_stream' and not is_async_callable(func):
        # A sync function, run in a worker thread, has no way to await the handler it is given.
        raise UserError(f'{point!r} hooks must be async functions (they await the handler), got {func!r}')
    entries[point].append(Registered(point, func, timeout, tools))


class _HookDecorator:
    """Registers a function for one hook point: `@decorator` or `@decorator(timeout=...)`."""

    def __init__(self, entries: dict[str, list[Registered]], point: str) -> None:
        self._entries = entries
        self._point = point

    @overload
    def __call__(self, func: HookFuncT, /) -> HookFuncT: ...
    @overload
    def __call__(self, /, *, timeout: float | None = None) -> Callable[[HookFuncT], HookFuncT]: ...
    def __call__(
        self, func: HookFuncT | None = None, /, *, timeout: float | None = None
    ) -> HookFuncT | Callable[[HookFuncT], HookFuncT]:
        def register(func: HookFuncT) -> HookFuncT:
            add_hook(self._entries, self._point, func, timeout=timeout)
            return func

        return register if func is None else register(func)


class _ToolHookDecorator(_HookDecorator, Generic[AgentDepsT]):
    """Registers a function for one tool hook point: `@decorator` or `@decorator(tools=..., timeout=...)`."""

    @overload
    def __call__(self, func: HookFuncT, /) -> HookFuncT: ...
    @overload
    def __call__(
        self, /, *, tools: ToolSelector[AgentDepsT] = 'all', timeout: float | None = None
    ) -> Callable[[HookFuncT], HookFuncT]: ...
    def __call__(
        self,
        func: HookFuncT | None = None,
        /,
        *,
        tools: ToolSelector[AgentDepsT] = 'all',
        timeout: float | None = None,
    ) -> HookFuncT | Callable[[HookFuncT], HookFuncT]:
        def register(func: HookFuncT) -> HookFuncT:
            add_hook(self._entries, self._point, func, timeout=timeout, tools=cast(ToolSelector[Any], tools))
            return func

        return register if func is None else register(func)


class HookRegistry(Generic[AgentDepsT]):
    """The `hooks.on` namespace: one decorator per hook point, each returning the function unchanged.

    ```python
    @hooks.on.after_model_request
    def log_response(ctx, *, request_context, response):
        print(response.parts)

    @hooks.on.tool_execute(tools=['delete_file'], timeout=5.0)  # short for `wrap_tool_execute`
    async def confirm(ctx, *, call, tool_def, args, handler):
        ...
    ```
    """

    # Declared for type checkers and readers; `__getattr__` builds them.
    before_run: _HookDecorator
    after_run: _HookDecorator
    wrap_run: _HookDecorator
    run: _HookDecorator
    on_run_error: _HookDecorator
    run_error: _HookDecorator
    before_node_run: _HookDecorator
    after_node_run: _HookDecorator
    wrap_node_run: _HookDecorator
    node_run: _HookDecorator
    on_node_run_error: _HookDecorator
    node_run_error: _HookDecorator
    before_model_request: _HookDecorator
    after_model_request: _HookDecorator
    wrap_model_request: _HookDecorator
    model_request: _HookDecorator
    on_model_request_error: _HookDecorator
    model_request_error: _HookDecorator
    before_tool_validate: _ToolHookDecorator[AgentDepsT]
    after_tool_validate: _ToolHookDecorator[AgentDepsT]
    wrap_tool_validate: _ToolHookDecorator[AgentDepsT]
    tool_validate: _ToolHookDecorator[AgentDepsT]
    on_tool_validate_error: _ToolHookDecorator[AgentDepsT]
    tool_validate_error: _ToolHookDecorator[AgentDepsT]
    before_tool_execute: _ToolHookDecorator[AgentDepsT]
    after_tool_execute: _ToolHookDecorator[AgentDepsT]
    wrap_tool_execute: _ToolHookDecorator[AgentDepsT]
    tool_execute: _ToolHookDecorator[AgentDepsT]
    on_tool_execute_error: _ToolHookDecorator[AgentDepsT]
    tool_execute_error: _ToolHookDecorator[AgentDepsT]
    before_output_validate: _HookDecorator
    after_output_validate: _HookDecorator
    wrap_output_validate: _HookDecorator
    output_validate: _HookDecorator
    on_output_validate_error: _HookDecorator
    output_validate_error: _HookDecorator
    before_output_process: _HookDecorator
    after_output_process: _HookDecorator
    wrap_output_process: _HookDecorator
    output_process: _HookDecorator
    on_output_process_error: _HookDecorator
    output_process_error: _HookDecorator
    prepare_tools: _HookDecorator
    prepare_output_tools: _HookDecorator
    wrap_run_event_stream: _HookDecorator
    run_event_stream: _HookDecorator
    event: _HookDecorator
    handle_deferred_tool_calls: _HookDecorator
    deferred_tool_calls: _HookDecorator

    def __init__(self, entries: dict[str, list[Registered]]) -> None:
        self._entries = entries

    def __getattr__(self, name: str) -> Any:
        if name.startswith('_'):
            raise AttributeError(name)
        point = SHORT_NAMES.get(name, name)
        if point not in POINTS:
            raise AttributeError(f'{name!r} is not a hook point; valid hook points are: {", ".join(POINTS)}')
        if point in _TOOL_HOOKS:
            return _ToolHookDecorator[AgentDepsT](self._entries, point)
        return _HookDecorator(self._entries, point)

    def __dir__(self) -> list[str]:
        return [*super().__dir__(), *HOOK_NAMES, *SHORT_NAMES]
