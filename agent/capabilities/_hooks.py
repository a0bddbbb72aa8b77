"""`Hooks`: lifecycle hooks written as plain functions and registered by decorator or constructor.

Each hook function has the signature of the `AbstractCapability` method of the same name, without `self`,
and may be sync (run in a worker thread) or async. Within one `Hooks` instance, several functions for one
hook point compose like capabilities do, with one simplification:

- `before_*`, `after_*` and `prepare_tools` run in registration order, each seeing the previous one's
  output. Returning `None` leaves the value unchanged, so a hook that only logs need not return anything.
  (Capabilities run `after_*` in reverse; here registration order is used throughout, which is easier to
  reason about for a list of functions in one place.)
- `wrap_*` nest as middleware, the first registered outermost. A `Skip*` signal raised by an inner one is
  the result its outer neighbour's handler returns.
- `on_*_error` run in registration order, each receiving the current error. Raising (the same or another
  exception) hands that exception to the next; returning a value recovers and skips the rest. Returning
  `None` means "not handled": the error passes on unchanged.

Options: `timeout` bounds one call of the function (for a `wrap_*` hook it includes the handler it awaits)
and raises `HookTimeoutError` (a `TimeoutError`) naming the function and the hook point. A sync function
cannot be interrupted in its thread, so its timeout is reported when it returns. `tools` (tool validation and
execution points only) is a `ToolSelector`; for tools it does not select, the hook is skipped as if it were not
registered.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from agent._model_request_context import ModelRequestContext
from agent._parts import ModelResponse, ToolCallPart
from agent._run_context import RunContext
from agent._threads import is_async_callable
from agent._tool import AgentDepsT, matches_tool_selector
from agent._tool_def import ToolDefinition
from agent.exceptions import SkipModelRequest, SkipToolExecution, SkipToolValidation

from ._abstract import AbstractCapability, RawOutput, WrapOutputProcessHandler, WrapOutputValidateHandler
from ._hook_registry import EVENT_POINT, POINTS, HookRegistry, Registered, add_hook, hook_point
from ._ordering import CapabilityOrdering
from ._types import (
    AgentNode,
    NodeResult,
    RawToolArgs,
    ValidatedToolArgs,
    WrapModelRequestHandler,
    WrapNodeRunHandler,
    WrapRunHandler,
    WrapToolExecuteHandler,
    WrapToolValidateHandler,
)

if TYPE_CHECKING:
    from pydantic import ValidationError

    from agent._deferred import DeferredToolRequests, DeferredToolResults
    from agent._events import AgentStreamEvent
    from agent.exceptions import ModelRetry
    from agent.output import OutputContext
    from agent.run import AgentRunResult

__all__ = ('Hooks',)

_Handler = Callable[[Any], Awaitable[Any]]
_Invoke = Callable[['Registered', Any, _Handler], Awaitable[Any]]


class Hooks(AbstractCapability[AgentDepsT]):
    """Lifecycle hooks as plain functions, without subclassing `AbstractCapability`.

    ```python
    hooks = Hooks()

    @hooks.on.before_model_request
    async def log_request(ctx: RunContext[None], request_context: ModelRequestContext) -> ModelRequestContext:
        print(f'Sending {len(request_context.messages)} messages')
        return request_context

    agent = Agent('openai:gpt-5.2', capabilities=[hooks, Hooks(after_tool_execute=[audit, redact])])
    ```
    """

    on: HookRegistry[AgentDepsT]
    """The decorators registering functions for each hook point, e.g. `@hooks.on.wrap_tool_execute`."""

    def __init__(
        self,
        *,
        ordering: CapabilityOrdering | None = None,
        id: str | None = None,
        description: str | None = None,
        defer_loading: bool = False,
        **hooks: Callable[..., Any] | Sequence[Callable[..., Any]] | None,
    ) -> None:
        """Register functions by hook point name.

        Args:
            ordering: Where these hooks sit among the agent's other capabilities (see `get_ordering`).
            id: The capability's name within a run (required with `defer_loading=True`).
            description: What these hooks are for (shown in the catalog of deferred capabilities).
            defer_loading: Fire none of the hooks until the model loads this capability.
            **hooks: For each hook point name (or its short name, e.g. `model_request` for `wrap_model_request`),
                a function or a list of functions (registered in order); `None` registers nothing.

        Raises:
            UserError: for a name that is not a hook point, or a function that cannot serve that hook point.
        """
        self._ordering = ordering
        self.id, self.description, self.defer_loading = id, description, defer_loading
        self._entries: dict[str, list[Registered]] = {name: [] for name in POINTS}
        self.on = HookRegistry[AgentDepsT](self._entries)
        for name, funcs in hooks.items():
            point = hook_point(name)
            for func in [] if funcs is None else [funcs] if callable(funcs) else funcs:
                add_hook(self._entries, point, func)

    def __repr__(self) -> str:
        counts = {point: len(entries) for point, entries in self._entries.items() if entries}
        return f'{type(self).__name__}({counts})'

    def get_ordering(self) -> CapabilityOrdering | None:
        return self._ordering

    @classmethod
    def get_serialization_name(cls) -> str | None:
        # Takes functions, which an agent spec cannot express.
        return None

    def hook_names(self) -> frozenset[str]:
        """The hook points with at least one registered function (the class implements them all)."""
        points = {point for point, entries in self._entries.items() if entries}
        if EVENT_POINT in points:
            points.remove(EVENT_POINT)
            points.add('wrap_run_event_stream')
        return frozenset(points)

    # Composition helpers.

    async def _tool_entries(
        self, point: str, ctx: RunContext[AgentDepsT], tool_def: ToolDefinition
    ) -> list[Registered]:
        return [entry for entry in self._entries[point] if await matches_tool_selector(entry.tools, ctx, tool_def)]

    @staticmethod
    async def _pipe(
        entries: Sequence[Registered], value: Any, call: Callable[[Registered, Any], Awaitable[Any]]
    ) -> Any:
        for entry in entries:
            changed = await call(entry, value)
            if changed is not None:
                value = changed
        return value

    @staticmethod
    async def _recover(
        entries: Sequence[Registered], error: BaseException, call: Callable[[Registered, Any], Awaitable[Any]]
    ) -> Any:
        for entry in entries:
            try:
                recovered = await call(entry, error)
            except Exception as raised:
                error = raised
                continue
            if recovered is not None:
                return recovered
        raise error

    @staticmethod
    async def _nest(entries: Sequence[Registered], handler: _Handler, value: Any, invoke: _Invoke) -> Any:
        skip = _SKIP_SIGNALS.get(entries[0].point, ()) if entries else ()
        for index in reversed(range(len(entries))):
            handler = _layer(entries[index], handler, invoke, absorb=skip if index > 0 else ())
        return await handler(value)

    # Run hooks.

    async def before_run(self, ctx: RunContext[AgentDepsT]) -> None:
        for entry in self._entries['before_run']:
            await entry.call(ctx)

    async def after_run(self, ctx: RunContext[AgentDepsT], *, result: AgentRunResult[Any]) -> AgentRunResult[Any]:
        return await self._pipe(self._entries['after_run'], result, lambda e, r: e.call(ctx, result=r))

    async def wrap_run(self, ctx: RunContext[AgentDepsT], *, handler: WrapRunHandler) -> AgentRunResult[Any]:
        async def run(_: Any) -> Any:
            return await handler()

        def invoke(entry: Registered, _: Any, inner: _Handler) -> Awaitable[Any]:
            return entry.call(ctx, handler=lambda: inner(None))

        return await self._nest(self._entries['wrap_run'], run, None, invoke)

    async def on_run_error(self, ctx: RunContext[AgentDepsT], *, error: BaseException) -> AgentRunResult[Any]:
        return await self._recover(self._entries['on_run_error'], error, lambda e, err: e.call(ctx, error=err))

    # Node hooks.

    async def before_node_run(
        self, ctx: RunContext[AgentDepsT], *, node: AgentNode[AgentDepsT]
    ) -> AgentNode[AgentDepsT]:
        return await self._pipe(self._entries['before_node_run'], node, lambda e, n: e.call(ctx, node=n))

    async def after_node_run(
        self, ctx: RunContext[AgentDepsT], *, node: AgentNode[AgentDepsT], result: NodeResult[AgentDepsT]
    ) -> NodeResult[AgentDepsT]:
        entries = self._entries['after_node_run']
        return await self._pipe(entries, result, lambda e, r: e.call(ctx, node=node, result=r))

    async def wrap_node_run(
        self, ctx: RunContext[AgentDepsT], *, node: AgentNode[AgentDepsT], handler: WrapNodeRunHandler[AgentDepsT]
    ) -> NodeResult[AgentDepsT]:
        entries = self._entries['wrap_node_run']
        return await self._nest(entries, handler, node, lambda e, n, inner: e.call(ctx, node=n, handler=inner))

    async def on_node_run_error(
        self, ctx: RunContext[AgentDepsT], *, node: AgentNode[AgentDepsT], error: BaseException
    ) -> NodeResult[AgentDepsT]:
        entries = self._entries['on_node_run_error']
        return await self._recover(entries, error, lambda e, err: e.call(ctx, node=node, error=err))

    # Model request hooks.

    async def before_model_request(
        self, ctx: RunContext[AgentDepsT], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        entries = self._entries['before_model_request']
        return await self._pipe(entries, request_context, lambda e, rc: e.call(ctx, rc))

    async def after_model_request(
        self, ctx: RunContext[AgentDepsT], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        entries = self._entries['after_model_request']
        return await self._pipe(
            entries, response, lambda e, r: e.call(ctx, request_context=request_context, response=r)
        )

    async def wrap_model_request(
        self, ctx: RunContext[AgentDepsT], *, request_context: ModelRequestContext, handler: WrapModelRequestHandler
    ) -> ModelResponse:
        entries = self._entries['wrap_model_request']
        return await self._nest(
            entries, handler, request_context, lambda e, rc, inner: e.call(ctx, request_context=rc, handler=inner)
        )

    async def on_model_request_error(
        self, ctx: RunContext[AgentDepsT], *, request_context: ModelRequestContext, error: Exception
    ) -> ModelResponse:
        entries = self._entries['on_model_request_error']
        return await self._recover(
            entries, error, lambda e, err: e.call(ctx, request_context=request_context, error=err)
        )

    # Tool validation hooks.

    async def before_tool_validate(
        self, ctx: RunContext[AgentDepsT], *, call: ToolCallPart, tool_def: ToolDefinition, args: RawToolArgs
    ) -> RawToolArgs:
        entries = await self._tool_entries('before_tool_validate', ctx, tool_def)
        return await self._pipe(entries, args, lambda e, a: e.call(ctx, call=call, tool_def=tool_def, args=a))

    async def after_tool_validate(
        self, ctx: RunContext[AgentDepsT], *, call: ToolCallPart, tool_def: ToolDefinition, args: ValidatedToolArgs
    ) -> ValidatedToolArgs:
        entries = await self._tool_entries('after_tool_validate', ctx, tool_def)
        return await self._pipe(entries, args, lambda e, a: e.call(ctx, call=call, tool_def=tool_def, args=a))

    async def wrap_tool_validate(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: RawToolArgs,
        handler: WrapToolValidateHandler,
    ) -> ValidatedToolArgs:
        entries = await self._tool_entries('wrap_tool_validate', ctx, tool_def)
        return await self._nest(
            entries, handler, args, lambda e, a, inner: e.call(ctx, call=call, tool_def=tool_def, args=a, handler=inner)
        )

    async def on_tool_validate_error(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: RawToolArgs,
        error: Exception,
    ) -> ValidatedToolArgs:
        entries = await self._tool_entries('on_tool_validate_error', ctx, tool_def)
        return await self._recover(
            entries, error, lambda e, err: e.call(ctx, call=call, tool_def=tool_def, args=args, error=err)
        )

    # Tool execution hooks.

    async def before_tool_execute(
        self, ctx: RunContext[AgentDepsT], *, call: ToolCallPart, tool_def: ToolDefinition, args: ValidatedToolArgs
    ) -> ValidatedToolArgs:
        entries = await self._tool_entries('before_tool_execute', ctx, tool_def)
        return await self._pipe(entries, args, lambda e, a: e.call(ctx, call=call, tool_def=tool_def, args=a))

    async def after_tool_execute(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        result: Any,
    ) -> Any:
        entries = await self._tool_entries('after_tool_execute', ctx, tool_def)
        return await self._pipe(
            entries, result, lambda e, r: e.call(ctx, call=call, tool_def=tool_def, args=args, result=r)
        )

    async def wrap_tool_execute(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        handler: WrapToolExecuteHandler,
    ) -> Any:
        entries = await self._tool_entries('wrap_tool_execute', ctx, tool_def)
        return await self._nest(
            entries, handler, args, lambda e, a, inner: e.call(ctx, call=call, tool_def=tool_def, args=a, handler=inner)
        )

    async def on_tool_execute_error(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        error: Exception,
    ) -> Any:
        entries = await self._tool_entries('on_tool_execute_error', ctx, tool_def)
        return await self._recover(
            entries, error, lambda e, err: e.call(ctx, call=call, tool_def=tool_def, args=args, error=err)
        )

    # Output hooks.

    async def before_output_validate(
        self, ctx: RunContext[AgentDepsT], *, output_context: OutputContext, output: RawOutput
    ) -> RawOutput:
        entries = self._entries['before_output_validate']
        return await self._pipe(entries, output, lambda e, o: e.call(ctx, output_context=output_context, output=o))

    async def after_output_validate(
        self, ctx: RunContext[AgentDepsT], *, output_context: OutputContext, output: Any
    ) -> Any:
        entries = self._entries['after_output_validate']
        return await self._pipe(entries, output, lambda e, o: e.call(ctx, output_context=output_context, output=o))

    async def wrap_output_validate(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        output_context: OutputContext,
        output: RawOutput,
        handler: WrapOutputValidateHandler,
    ) -> Any:
        entries = self._entries['wrap_output_validate']
        return await self._nest(
            entries,
            handler,
            output,
            lambda e, o, inner: e.call(ctx, output_context=output_context, output=o, handler=inner),
        )

    async def on_output_validate_error(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        output_context: OutputContext,
        output: RawOutput,
        error: ValidationError | ModelRetry,
    ) -> Any:
        entries = self._entries['on_output_validate_error']
        return await self._recover(
            entries, error, lambda e, err: e.call(ctx, output_context=output_context, output=output, error=err)
        )

    async def before_output_process(
        self, ctx: RunContext[AgentDepsT], *, output_context: OutputContext, output: Any
    ) -> Any:
        entries = self._entries['before_output_process']
        return await self._pipe(entries, output, lambda e, o: e.call(ctx, output_context=output_context, output=o))

    async def after_output_process(
        self, ctx: RunContext[AgentDepsT], *, output_context: OutputContext, output: Any
    ) -> Any:
        entries = self._entries['after_output_process']
        return await self._pipe(entries, output, lambda e, o: e.call(ctx, output_context=output_context, output=o))

    async def wrap_output_process(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        output_context: OutputContext,
        output: Any,
        handler: WrapOutputProcessHandler,
    ) -> Any:
        entries = self._entries['wrap_output_process']
        return await self._nest(
            entries,
            handler,
            output,
            lambda e, o, inner: e.call(ctx, output_context=output_context, output=o, handler=inner),
        )

    async def on_output_process_error(
        self, ctx: RunContext[AgentDepsT], *, output_context: OutputContext, output: Any, error: Exception
    ) -> Any:
        entries = self._entries['on_output_process_error']
        return await self._recover(
            entries, error, lambda e, err: e.call(ctx, output_context=output_context, output=output, error=err)
        )

    # Tool visibility and event streams.

    async def prepare_tools(self, ctx: RunContext[AgentDepsT], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return await self._pipe(self._entries['prepare_tools'], tool_defs, lambda e, defs: e.call(ctx, defs))

    async def prepare_output_tools(
        self, ctx: RunContext[AgentDepsT], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        return await self._pipe(self._entries['prepare_output_tools'], tool_defs, lambda e, defs: e.call(ctx, defs))

    async def handle_deferred_tool_calls(
        self, ctx: RunContext[AgentDepsT], *, requests: DeferredToolRequests
    ) -> DeferredToolResults | None:
        """Each function in turn gets the calls still unresolved; `None` if none resolved anything."""
        from agent._deferred import DeferredToolResults

        resolved: DeferredToolResults | None = None
        remaining = requests
        for entry in self._entries['handle_deferred_tool_calls']:
            results: DeferredToolResults | None = await entry.call(ctx, requests=remaining)
            if results is None or not results.tool_call_ids:
                continue
            resolved = resolved or DeferredToolResults()
            resolved.update(results)
            left = remaining.remaining(results)
            if left is None:
                break
            remaining = left
        return resolved

    def wrap_run_event_stream(
        self, ctx: RunContext[AgentDepsT], *, stream: AsyncIterable[AgentStreamEvent]
    ) -> AsyncIterable[AgentStreamEvent]:
        if self._entries[EVENT_POINT]:
            # Per-event functions see the events first; the stream wrappers are layered around them.
            stream = _per_event(self._entries[EVENT_POINT], ctx, stream)
        for entry in reversed(self._entries['wrap_run_event_stream']):
            if is_async_callable(entry.func):
                stream = _awaited_stream(entry.func, ctx, stream)
            else:
                # Async generator functions (the usual form) and functions returning a stream are called
                # directly: the stream is built here and consumed by the run.
                stream = entry.func(ctx, stream=stream)
        return stream


_SKIP_SIGNALS: dict[str, tuple[type[Exception], ...]] = {
    'wrap_model_request': (SkipModelRequest,),
    'wrap_tool_validate': (SkipToolValidation,),
    'wrap_tool_execute': (SkipToolExecution,),
}
"""The signal an inner `wrap_*` hook may raise to supply its point's value instead of calling its handler."""


def _layer(entry: Registered, inner: _Handler, invoke: _Invoke, *, absorb: tuple[type[Exception], ...]) -> _Handler:
    """Turn one `wrap_*` function into the handler its outer neighbour receives."""

    async def handler(value: Any) -> Any:
        try:
            return await invoke(entry, value, inner)
        except absorb as skip:
            if isinstance(skip, SkipModelRequest):
                return skip.response
            if isinstance(skip, SkipToolValidation):
                return skip.args
            return cast(SkipToolExecution, skip).result

    return handler


async def _awaited_stream(
    func: Callable[..., Any], ctx: RunContext[Any], stream: AsyncIterable[AgentStreamEvent]
) -> AsyncIterator[AgentStreamEvent]:
    """The stream returned by an async function that returns (rather than yields) a stream."""
    wrapped: AsyncIterable[AgentStreamEvent] = await func(ctx, stream=stream)
    async for event in wrapped:
        yield event


async def _per_event(
    entries: Sequence[Registered], ctx: RunContext[Any], stream: AsyncIterable[AgentStreamEvent]
) -> AsyncIterator[AgentStreamEvent]:
    """The stream with each event passed through the `event` functions in turn (`None` keeps the event)."""
    async for event in stream:
        for entry in entries:
            changed = await entry.call(ctx, event)
            if changed is not None:
                event = changed
        yield event
