"""Drivers that run one lifecycle point with a capability's hooks around it.

The agent graph and the tool manager call only these functions, so the order in which hooks fire is decided
in one place:

```
before_X ──→ wrap_X(handler = the real operation)
               ├─ success ─────────────────→ after_X(result)
               └─ failure → on_X_error(error)
                              ├─ raises ───→ the error propagates; after_X is not called
                              └─ returns ──→ after_X(recovered result)
```

Which exceptions count as failures: any `Exception` except the `Skip*` signal of that point, which means
"use this value instead" (raised from `before_X` or `wrap_X`; `after_X` still runs on the value). For tool
execution, `ApprovalRequired` and `CallDeferred` are flow too and propagate untouched; `ModelRetry` is a
failure, so an error hook may recover from it or re-raise it into the normal retry flow, while a `ToolRetryError`
(a hook sending its own retry prompt) is flow and goes straight back to the model. Exceptions that
are not `Exception`s (cancellation, `KeyboardInterrupt`) always propagate without any hook seeing them.
Errors raised by `before_X` or `after_X` themselves also propagate: error hooks handle failures of the
operation (including `wrap_X` middleware), not of the hooks that prepare or post-process it.

The two output points narrow what counts as a failure, as Pydantic AI does: output validation fails only with
`ValidationError` or `ModelRetry` (other exceptions propagate untouched), and for output processing
`ModelRetry` is the retry flow, never shown to `on_output_process_error`. Whatever `ValidationError` or
`ModelRetry` leaves an output driver becomes a retry prompt to the model.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import pydantic

from agent._model_request_context import ModelRequestContext
from agent._parts import ModelResponse, ToolCallPart
from agent._run_context import RunContext
from agent._tool import AgentDepsT
from agent._tool_def import ToolDefinition
from agent.exceptions import (
    ApprovalRequired,
    CallDeferred,
    ModelRetry,
    SkipModelRequest,
    SkipToolExecution,
    SkipToolValidation,
    ToolRetryError,
)

from ._abstract import AbstractCapability, RawOutput
from ._types import AgentNode, NodeResult, RawToolArgs, ValidatedToolArgs

if TYPE_CHECKING:
    from agent.output import OutputContext
    from agent.run import AgentRunResult

__all__ = (
    'run_with_model_request_hooks',
    'run_with_node_hooks',
    'run_with_output_process_hooks',
    'run_with_output_validate_hooks',
    'run_with_run_hooks',
    'run_with_tool_execute_hooks',
    'run_with_tool_validate_hooks',
)


async def run_with_run_hooks(
    cap: AbstractCapability[AgentDepsT],
    ctx: RunContext[AgentDepsT],
    run: Callable[[], Awaitable[AgentRunResult[Any]]],
) -> AgentRunResult[Any]:
    """Run a whole agent run with the run hooks around it (`before_run` only observes, inside `wrap_run`).

    `on_run_error` and `after_run` run after `wrap_run` returned, but with the context variables as `before_run`
    and `wrap_run` had set them when the run started, as they would be for code after the run in one task.
    """
    started: list[contextvars.Context] = []

    async def handler() -> AgentRunResult[Any]:
        # Inside wrap_run, so middleware set up by wrap_run (a span, a context variable) is in place for before_run.
        await cap.before_run(ctx)
        if {'before_run', 'wrap_run'} & cap.hook_names():
            started.append(contextvars.copy_context())
        return await run()

    async def in_run_context(hook: Awaitable[AgentRunResult[Any]]) -> AgentRunResult[Any]:
        if not started:
            return await hook
        return await asyncio.get_running_loop().create_task(_awaited(hook), context=started[0].copy())

    try:
        result = await cap.wrap_run(ctx, handler=handler)
    except Exception as error:
        result = await in_run_context(cap.on_run_error(ctx, error=error))
    return await in_run_context(cap.after_run(ctx, result=result))


async def _awaited(hook: Awaitable[AgentRunResult[Any]]) -> AgentRunResult[Any]:
    return await hook


async def run_with_node_hooks(
    cap: AbstractCapability[AgentDepsT],
    ctx: RunContext[AgentDepsT],
    node: AgentNode[AgentDepsT],
    run_node: Callable[[AgentNode[AgentDepsT]], Awaitable[NodeResult[AgentDepsT]]],
) -> NodeResult[AgentDepsT]:
    """Run one graph node with the node hooks around it; `before_node_run` may replace the node."""
    node = await cap.before_node_run(ctx, node=node)
    try:
        result = await cap.wrap_node_run(ctx, node=node, handler=run_node)
    except Exception as error:
        result = await cap.on_node_run_error(ctx, node=node, error=error)
    return await cap.after_node_run(ctx, node=node, result=result)


async def run_with_model_request_hooks(
    cap: AbstractCapability[AgentDepsT],
    ctx: RunContext[AgentDepsT],
    request_context: ModelRequestContext,
    request: Callable[[ModelRequestContext], Awaitable[ModelResponse]],
    *,
    prepared: Callable[[ModelRequestContext], ModelRequestContext] | None = None,
) -> ModelResponse:
    """Make one model request with the model request hooks around it.

    `ctx.model_settings` should already hold the step's resolved settings; the hooks receive `ctx` as given.
    `prepared` turns what `before_model_request` left into what `wrap_model_request` and the model get (the run
    adopts the processed history there and merges adjacent requests; see `agent._processed_history`).
    """
    answered: list[ModelResponse] = []

    async def answer(request_context: ModelRequestContext) -> ModelResponse:
        response = await request(request_context)
        answered.append(response)
        return response

    try:
        request_context = await cap.before_model_request(ctx, request_context)
        if prepared is not None:
            request_context = prepared(request_context)
        try:
            response = await cap.wrap_model_request(ctx, request_context=request_context, handler=answer)
        except ModelRetry as retry:
            # ModelRetry asks the model again (the graph sends a retry prompt): it is not a failed request. When
            # the model did answer first, that answer stays in the history, before the retry.
            if answered and not isinstance(retry, RejectedResponse):
                raise RejectedResponse(retry.message, answered[-1]) from retry
            raise
        except SkipModelRequest:
            raise
        except Exception as error:
            response = await cap.on_model_request_error(ctx, request_context=request_context, error=error)
    except SkipModelRequest as skip:
        response = skip.response
    try:
        return await cap.after_model_request(ctx, request_context=request_context, response=response)
    except ModelRetry as retry:
        raise RejectedResponse(retry.message, response) from retry


class RejectedResponse(ModelRetry):
    """`after_model_request` rejected a response with `ModelRetry`; the run keeps the response and asks again."""

    def __init__(self, message: str, response: ModelResponse) -> None:
        super().__init__(message)
        self.response = response
        """The response the hook rejected (the model did answer: it stays in the history, before the retry)."""


async def run_with_tool_validate_hooks(
    cap: AbstractCapability[AgentDepsT],
    ctx: RunContext[AgentDepsT],
    *,
    call: ToolCallPart,
    tool_def: ToolDefinition,
    args: RawToolArgs,
    validate: Callable[[RawToolArgs], Awaitable[ValidatedToolArgs]],
) -> ValidatedToolArgs:
    """Validate one tool call's arguments with the tool validation hooks around it."""
    try:
        args = await cap.before_tool_validate(ctx, call=call, tool_def=tool_def, args=args)
        try:
            validated = await cap.wrap_tool_validate(ctx, call=call, tool_def=tool_def, args=args, handler=validate)
        except (SkipToolValidation, ToolRetryError):
            raise
        except Exception as error:
            validated = await cap.on_tool_validate_error(ctx, call=call, tool_def=tool_def, args=args, error=error)
    except SkipToolValidation as skip:
        validated = skip.args
    return await cap.after_tool_validate(ctx, call=call, tool_def=tool_def, args=validated)


async def run_with_tool_execute_hooks(
    cap: AbstractCapability[AgentDepsT],
    ctx: RunContext[AgentDepsT],
    *,
    call: ToolCallPart,
    tool_def: ToolDefinition,
    args: ValidatedToolArgs,
    execute: Callable[[ValidatedToolArgs], Awaitable[Any]],
) -> Any:
    """Execute one tool call with the tool execution hooks around it.

    A `ModelRetry` the tool raised reaches `on_tool_execute_error` (as the seeds' error-hook example expects); one
    a `wrap_tool_execute` hook raises itself asks the model again without going through the error hooks.
    """
    from_tool: list[ModelRetry] = []

    async def run_tool(validated: ValidatedToolArgs) -> Any:
        try:
            return await execute(validated)
        except ModelRetry as retry:
            from_tool.append(retry)
            raise

    try:
        args = await cap.before_tool_execute(ctx, call=call, tool_def=tool_def, args=args)
        try:
            result = await cap.wrap_tool_execute(ctx, call=call, tool_def=tool_def, args=args, handler=run_tool)
        except (SkipToolExecution, ApprovalRequired, CallDeferred, ToolRetryError):
            raise
        except ModelRetry as retry:
            if retry not in from_tool:
                raise  # the hook's own retry: control flow, not a failed execution
            result = await cap.on_tool_execute_error(ctx, call=call, tool_def=tool_def, args=args, error=retry)
        except Exception as error:
            result = await cap.on_tool_execute_error(ctx, call=call, tool_def=tool_def, args=args, error=error)
    except SkipToolExecution as skip:
        result = skip.result
    return await cap.after_tool_execute(ctx, call=call, tool_def=tool_def, args=args, result=result)


async def run_with_output_validate_hooks(
    cap: AbstractCapability[AgentDepsT],
    ctx: RunContext[AgentDepsT],
    *,
    output_context: OutputContext,
    output: RawOutput,
    validate: Callable[[RawOutput], Awaitable[Any]],
) -> Any:
    """Parse and validate raw output (tool arguments or structured text) with the output validation hooks around it.

    Returns the value the model was asked for (unwrapped from the object it was sent as).
    """
    output = await cap.before_output_validate(ctx, output_context=output_context, output=output)
    try:
        validated = await cap.wrap_output_validate(ctx, output_context=output_context, output=output, handler=validate)
    except (pydantic.ValidationError, ModelRetry) as error:
        validated = await cap.on_output_validate_error(ctx, output_context=output_context, output=output, error=error)
    return await cap.after_output_validate(ctx, output_context=output_context, output=validated)


async def run_with_output_process_hooks(
    cap: AbstractCapability[AgentDepsT],
    ctx: RunContext[AgentDepsT],
    *,
    output_context: OutputContext,
    output: Any,
    process: Callable[[Any], Awaitable[Any]],
) -> Any:
    """Turn validated output into the run's output (output function, output validators) with the process hooks."""
    output = await cap.before_output_process(ctx, output_context=output_context, output=output)
    try:
        result = await cap.wrap_output_process(ctx, output_context=output_context, output=output, handler=process)
    except ModelRetry:
        raise  # asks the model again: control flow, not a failed output
    except Exception as error:
        result = await cap.on_output_process_error(ctx, output_context=output_context, output=output, error=error)
    return await cap.after_output_process(ctx, output_context=output_context, output=result)
