"""Which side of a durable run each capability hook runs on: the workflow or the activity.

Control-flow hooks (run, node, `prepare_tools`, tool validation) steer the run, so they run in the
workflow and must be deterministic. The hooks that wrap I/O itself — model requests and tool
executions, in all four variants — run by default in the activity, next to the call they wrap, where
they may do I/O. A capability can move any of those eight to the workflow side (e.g. a deterministic
`before_model_request` that edits messages) with a class attribute:

```python
class TrimHistory(AbstractCapability[Any]):
    hook_sides = {'before_model_request': 'workflow'}
```

`wrap_run_event_stream` (e.g. `ProcessEventStream`) runs in the activities too, where the events happen,
around each activity's events on their way to the event stream handler (see `activities._event_streams`).

In-process runs ignore sides: every hook runs where the call happens.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from agent._model_request_context import ModelRequestContext
from agent._parts import ModelResponse, ToolCallPart
from agent._run_context import RunContext
from agent._tool_def import ToolDefinition
from agent.exceptions import UserError

from ._abstract import AbstractCapability
from ._combined import CombinedCapability
from ._types import ValidatedToolArgs, WrapModelRequestHandler, WrapToolExecuteHandler

__all__ = ('IO_HOOKS', 'HookSide', 'hook_side', 'split_by_side')

HookSide = Literal['workflow', 'activity']
"""Where a hook runs in a durable run."""

IO_HOOKS = frozenset(
    f'{variant}_{point}' for point in ('model_request', 'tool_execute') for variant in ('before', 'after', 'wrap')
) | frozenset({'on_model_request_error', 'on_tool_execute_error'})
"""The hooks that wrap I/O: they run in the activity unless a capability moves them."""


def hook_side(capability: AbstractCapability[Any], hook: str) -> HookSide:
    """Where `hook` of `capability` runs in a durable run.

    Raises:
        UserError: if the capability asks to move a hook that must stay in the workflow.
    """
    sides: dict[str, HookSide] = dict(getattr(capability, 'hook_sides', None) or {})
    for name, side in sides.items():
        if name not in IO_HOOKS:
            raise UserError(
                f'{type(capability).__name__}.hook_sides moves {name!r}, but only the model-request and '
                f'tool-execute hooks can change sides ({", ".join(sorted(IO_HOOKS))}); the others steer the '
                'run and always run in the workflow.'
            )
        if side not in ('workflow', 'activity'):
            raise UserError(f"{type(capability).__name__}.hook_sides[{name!r}] must be 'workflow' or 'activity'")
    if hook in sides:
        return sides[hook]
    return 'activity' if hook in IO_HOOKS else 'workflow'


def _leaves(capability: AbstractCapability[Any]) -> Iterable[AbstractCapability[Any]]:
    if isinstance(capability, CombinedCapability):
        for part in capability.capabilities:
            yield from _leaves(part)
    else:
        yield capability


def split_by_side(capability: AbstractCapability[Any]) -> tuple[AbstractCapability[Any], AbstractCapability[Any]]:
    """The I/O hooks of `capability` that run in the workflow, and those that run in the activity.

    Each side is a capability offering only its side's I/O hooks (every other method is a pass-through),
    in the original order, so composition rules are unchanged on each side.
    """
    workflow_side: list[AbstractCapability[Any]] = []
    activity_side: list[AbstractCapability[Any]] = []
    for leaf in _leaves(capability):
        hook_side(leaf, '')  # validates the capability's hook_sides even if it implements none of them
        hooks = leaf.hook_names() & IO_HOOKS
        on_workflow = frozenset(h for h in hooks if hook_side(leaf, h) == 'workflow')
        on_activity = hooks - on_workflow
        # Each side keeps the leaf's id and deferral, so a deferred capability's hooks wait for its load there too.
        if on_workflow:
            workflow_side.append(_IOHooksOnly(leaf, on_workflow, id=leaf.id, defer_loading=leaf.defer_loading))
        if on_activity:
            activity_side.append(_IOHooksOnly(leaf, on_activity, id=leaf.id, defer_loading=leaf.defer_loading))
    return CombinedCapability(workflow_side), CombinedCapability(activity_side)


@dataclass
class _IOHooksOnly(AbstractCapability[Any]):
    """Offers only the given I/O hooks of `wrapped`; everything else passes through."""

    wrapped: AbstractCapability[Any]
    enabled: frozenset[str]

    def hook_names(self) -> frozenset[str]:
        return self.enabled

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        if 'before_model_request' in self.enabled:
            return await self.wrapped.before_model_request(ctx, request_context)
        return request_context

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        if 'after_model_request' in self.enabled:
            return await self.wrapped.after_model_request(ctx, request_context=request_context, response=response)
        return response

    async def wrap_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, handler: WrapModelRequestHandler
    ) -> ModelResponse:
        if 'wrap_model_request' in self.enabled:
            return await self.wrapped.wrap_model_request(ctx, request_context=request_context, handler=handler)
        return await handler(request_context)

    async def on_model_request_error(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, error: Exception
    ) -> ModelResponse:
        if 'on_model_request_error' in self.enabled:
            return await self.wrapped.on_model_request_error(ctx, request_context=request_context, error=error)
        raise error

    async def before_tool_execute(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: ValidatedToolArgs
    ) -> ValidatedToolArgs:
        if 'before_tool_execute' in self.enabled:
            return await self.wrapped.before_tool_execute(ctx, call=call, tool_def=tool_def, args=args)
        return args

    async def after_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        result: Any,
    ) -> Any:
        if 'after_tool_execute' in self.enabled:
            return await self.wrapped.after_tool_execute(ctx, call=call, tool_def=tool_def, args=args, result=result)
        return result

    async def wrap_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        handler: WrapToolExecuteHandler,
    ) -> Any:
        if 'wrap_tool_execute' in self.enabled:
            return await self.wrapped.wrap_tool_execute(ctx, call=call, tool_def=tool_def, args=args, handler=handler)
        return await handler(args)

    async def on_tool_execute_error(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        error: Exception,
    ) -> Any:
        if 'on_tool_execute_error' in self.enabled:
            return await self.wrapped.on_tool_execute_error(ctx, call=call, tool_def=tool_def, args=args, error=error)
        raise error
