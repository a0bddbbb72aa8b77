"""`ToolManager`: the tools available on one run step, and validating and executing calls to them.

Validation (with the tool-validate hooks) happens here, in the run's control flow. Execution (with the
tool-execute hooks) goes through the run's ports, so a durable run can execute it as an activity.
Every failure the model can fix (bad JSON, schema errors, `ModelRetry`, a timeout) becomes a
`RetryPromptPart` until the tool's retries run out, and then `ToolRetriesExhausted` names the tool.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Generic, Literal

import pydantic
from typing_extensions import TypeVar

from ._deferred import DeferredToolRequests, ToolApproved, ToolDenied
from ._parts import RetryPromptPart, ToolCallPart
from ._ports import RunPorts, current_ports
from ._run_context import RunContext
from ._tool_def import ToolDefinition
from .capabilities import run_with_tool_validate_hooks
from .exceptions import (
    ApprovalRequired,
    CallDeferred,
    ModelRetry,
    ToolFailed,
    ToolRetriesExhausted,
    ToolRetryError,
    UserError,
)

if TYPE_CHECKING:
    from .capabilities import AbstractCapability
    from .toolsets import AbstractToolset, ToolsetTool

__all__ = ('ParallelExecutionMode', 'ToolManager')

DepsT = TypeVar('DepsT', default=None)


ParallelExecutionMode = Literal['parallel', 'sequential', 'parallel_ordered_events']
"""How the calls of one model response run: all at once, one by one, or all at once with their events in order."""


class ToolManager(Generic[DepsT]):
    """The tools for one run step, with validation and execution of calls to them.

    `ToolManager(toolset)` is not yet bound to a step: `await manager.for_run_step(ctx)` returns the manager
    of that step (with the toolset's tools fetched), and the manager of each next step is made from the
    previous one, so the retries a step used carry over.
    """

    toolset: AbstractToolset[DepsT]
    """The run's assembled (non-output) toolset."""
    capability: AbstractCapability[DepsT]
    """The run's combined capability (hooks); one without hooks if none was given."""
    ports: RunPorts
    """Where tool executions are performed."""
    tools: dict[str, ToolsetTool[DepsT]]
    """The step's tools by name, after `get_tools`."""
    failed_tools: set[str]
    """The tools that failed on this step (several failures of one tool in one step cost one retry)."""
    default_max_retries: int
    """How many retries a tool whose toolset sets none gets."""

    def __init__(
        self,
        toolset: AbstractToolset[DepsT],
        root_capability: AbstractCapability[DepsT] | None = None,
        ctx: RunContext[DepsT] | None = None,
        tools: dict[str, ToolsetTool[DepsT]] | None = None,
        *,
        ports: RunPorts | None = None,
        default_max_retries: int = 1,
    ) -> None:
        from .capabilities import CombinedCapability

        self.toolset = toolset
        self.capability = root_capability if root_capability is not None else CombinedCapability([])
        self._ctx = ctx
        self.tools = tools if tools is not None else {}
        self.ports = ports if ports is not None else current_ports()
        self.failed_tools = set()
        self.default_max_retries = default_max_retries

    def __repr__(self) -> str:
        step = self._ctx.run_step if self._ctx is not None else None
        return f'{type(self).__name__}(toolset={self.toolset!r}, run_step={step!r}, tools={sorted(self.tools)!r})'

    @property
    def root_capability(self) -> AbstractCapability[DepsT]:
        """The run's combined capability (the name Pydantic AI gives `capability`)."""
        return self.capability

    @property
    def ctx(self) -> RunContext[DepsT]:
        """The run context of the step.

        Raises:
            UserError: the manager is not bound to a step yet (call `for_run_step` first).
        """
        if self._ctx is None:
            raise UserError('This ToolManager is not bound to a run step yet: use `await manager.for_run_step(ctx)`.')
        return self._ctx

    @classmethod
    async def for_step(
        cls,
        ctx: RunContext[DepsT],
        toolset: AbstractToolset[DepsT],
        capability: AbstractCapability[DepsT],
        ports: RunPorts,
    ) -> ToolManager[DepsT]:
        """Fetch the toolset's tools for this step."""
        tools = await toolset.get_tools(ctx)
        return cls(toolset, capability, ctx, tools, ports=ports)

    async def for_run_step(self, ctx: RunContext[DepsT]) -> ToolManager[DepsT]:
        """The manager of the step `ctx` is on: this one if it already is, else a new one with the tools fetched.

        The new step's context starts from the retries counted so far (a failure is counted when it happens),
        and its `tool_manager` is the new manager, so tools can call other tools through it.
        """
        if self._ctx is not None:
            if ctx.run_step == self._ctx.run_step:
                return self
            ctx = replace(ctx, retries=dict(self._ctx.retries))
        toolset = await self.toolset.for_run_step(ctx)
        manager = type(self)(
            toolset,
            self.capability,
            ctx,
            await toolset.get_tools(ctx),
            ports=self.ports,
            default_max_retries=self.default_max_retries,
        )
        ctx.tool_manager = manager
        return manager

    def get_parallel_execution_mode(self, calls: list[ToolCallPart]) -> ParallelExecutionMode:
        """`'sequential'` if any of `calls` is to a tool marked `sequential`, else `'parallel'`."""
        for call in calls:
            tool_def = self.get_tool_def(call.tool_name)
            if tool_def is not None and tool_def.sequential:
                return 'sequential'
        return 'parallel'

    @property
    def tool_defs(self) -> list[ToolDefinition]:
        """The definitions of the step's tools."""
        return [tool.tool_def for tool in self.tools.values()]

    def get_tool_def(self, name: str) -> ToolDefinition | None:
        """The definition of a tool, or `None` if there is no such tool this step."""
        tool = self.tools.get(name)
        return tool.tool_def if tool is not None else None

    def _call_ctx(self, call: ToolCallPart, tool: ToolsetTool[DepsT] | None, **changes: Any) -> RunContext[DepsT]:
        retry = self.ctx.retries.get(call.tool_name, 0)
        return replace(
            self.ctx,
            tool_name=call.tool_name,
            tool_call_id=call.tool_call_id,
            retry=retry,
            max_retries=tool.max_retries if tool is not None else 0,
            tool_manager=self,
            **changes,
        )

    def _retry(self, call: ToolCallPart, tool: ToolsetTool[DepsT], content: Any) -> ToolRetryError:
        """Count a failure of `call`'s tool and build the retry, or raise once retries are used up.

        `content` is the prompt's content, or a `ToolRetryError` a hook raised with a prompt of its own.
        """
        if isinstance(content, ToolRetryError):
            prompt = replace(content.tool_retry, tool_name=call.tool_name, tool_call_id=call.tool_call_id)
        else:
            prompt = RetryPromptPart(content, tool_name=call.tool_name, tool_call_id=call.tool_call_id)
        if call.tool_name in self.failed_tools:
            # Several failing calls of one tool in one response cost a single retry.
            return ToolRetryError(prompt)
        used = self.ctx.retries.get(call.tool_name, 0)
        if used >= tool.max_retries:
            raise ToolRetriesExhausted(call.tool_name, tool.max_retries, prompt)
        self.ctx.retries[call.tool_name] = used + 1
        self.failed_tools.add(call.tool_name)
        return ToolRetryError(prompt)

    def unknown_tool_prompt(self, call: ToolCallPart) -> RetryPromptPart:
        """The retry prompt for a call to a tool that does not exist this step."""
        names = sorted(self.tools)
        available = f'Available tools: {", ".join(map(repr, names))}' if names else 'No tools available.'
        return RetryPromptPart(
            f'Unknown tool name: {call.tool_name!r}. {available}',
            tool_name=call.tool_name,
            tool_call_id=call.tool_call_id,
        )

    async def validate_call(
        self, call: ToolCallPart, *, approved: bool = False, metadata: Any = None, wrap_validation_errors: bool = True
    ) -> dict[str, Any]:
        """Validate a call's arguments (with the tool-validate hooks).

        With `wrap_validation_errors=False` a `ValidationError` or `ModelRetry` propagates as it is and no retry
        is counted (for code that calls tools itself and wants the original error).

        Raises:
            ToolRetryError: the arguments are invalid (or a validator raised `ModelRetry`).
            ToolRetriesExhausted: the tool's retries are used up.
            KeyError: the tool does not exist (check `get_tool_def` first).
        """
        tool = self.tools[call.tool_name]
        ctx = self._call_ctx(call, tool, tool_call_approved=approved, tool_call_metadata=metadata)

        async def validate(raw: str | dict[str, Any]) -> dict[str, Any]:
            if isinstance(raw, str):
                validated: dict[str, Any] = tool.args_validator.validate_json(
                    raw or '{}', context=ctx.validation_context
                )
            else:
                validated = tool.args_validator.validate_python(raw, context=ctx.validation_context)
            if tool.post_validator is not None:
                await tool.post_validator(ctx, validated)
            return validated

        raw_args: str | dict[str, Any] = call.args if call.args is not None else {}
        try:
            return await run_with_tool_validate_hooks(
                self.capability, ctx, call=call, tool_def=tool.tool_def, args=raw_args, validate=validate
            )
        except (pydantic.ValidationError, ModelRetry, ToolRetryError) as exc:
            if not wrap_validation_errors:
                raise
            raise self._retry(call, tool, _retry_content(exc)) from exc

    async def handle_call(
        self, call: ToolCallPart, *, approved: bool = False, metadata: Any = None, wrap_validation_errors: bool = True
    ) -> Any:
        """Validate a call's arguments and execute it: what the run does for each function tool call.

        For code that calls the step's tools itself (`ctx.tool_manager`), e.g. a tool that runs other tools.

        Raises:
            ToolRetryError: the tool does not exist, its arguments are invalid, or it asked for a retry; the
                error's `tool_retry` is the prompt to send back to the model.
            ToolRetriesExhausted: the tool's retries are used up.
            ApprovalRequired, CallDeferred: the tool deferred the call.
            ToolFailed: the run's deferred-call handler answered the deferred call with a failure.
            pydantic.ValidationError, ModelRetry: with `wrap_validation_errors=False`, instead of a counted retry.
        """
        if call.tool_name not in self.tools:
            raise ToolRetryError(self.unknown_tool_prompt(call))
        wrap = wrap_validation_errors
        args = await self.validate_call(call, approved=approved, metadata=metadata, wrap_validation_errors=wrap)
        try:
            return await self.execute_call(
                call, args, approved=approved, metadata=metadata, wrap_validation_errors=wrap
            )
        except (ApprovalRequired, CallDeferred) as exc:
            return await self._resolve_inline(call, exc, wrap_validation_errors=wrap)

    async def _resolve_inline(
        self, call: ToolCallPart, exc: ApprovalRequired | CallDeferred, *, wrap_validation_errors: bool
    ) -> Any:
        """Ask the run's deferred-call handler (`HandleDeferredToolCalls`) about one deferred call, once.

        An approval runs the tool again (approved, with any override arguments) and a deferral it raises then
        propagates; a denial returns the `ToolDenied`; an external result is returned as the handler gave it, or
        raised as a retry for `ModelRetry` and `RetryPromptPart`, and as itself for `ToolFailed`. Without an answer
        the deferral propagates.
        """
        requests = DeferredToolRequests(
            approvals=[call] if isinstance(exc, ApprovalRequired) else [],
            calls=[call] if isinstance(exc, CallDeferred) else [],
            metadata={call.tool_call_id: exc.metadata} if exc.metadata else {},
        )
        results = await self.capability.handle_deferred_tool_calls(self.ctx, requests=requests)
        answer = results.to_tool_call_results().get(call.tool_call_id) if results is not None else None
        if results is None or answer is None:
            raise exc
        if isinstance(answer, ToolDenied):
            return answer
        if isinstance(answer, ToolApproved):
            approved_call = call if answer.override_args is None else replace(call, args=answer.override_args)
            metadata = results.metadata.get(call.tool_call_id)
            wrap = wrap_validation_errors
            args = await self.validate_call(
                approved_call, approved=True, metadata=metadata, wrap_validation_errors=wrap
            )
            return await self.execute_call(
                approved_call, args, approved=True, metadata=metadata, wrap_validation_errors=wrap
            )
        if isinstance(answer, ModelRetry):
            raise ToolRetryError(
                RetryPromptPart(answer.message, tool_name=call.tool_name, tool_call_id=call.tool_call_id)
            )
        if isinstance(answer, RetryPromptPart):
            raise ToolRetryError(replace(answer, tool_name=call.tool_name, tool_call_id=call.tool_call_id))
        if isinstance(answer, ToolFailed):
            raise answer
        return results.calls[call.tool_call_id]  # the handler's value as it gave it (plain, or a `ToolReturn`)

    async def execute_call(
        self,
        call: ToolCallPart,
        args: dict[str, Any],
        *,
        approved: bool = False,
        metadata: Any = None,
        wrap_validation_errors: bool = True,
    ) -> Any:
        """Execute a validated call through the run's ports (with the tool-execute hooks and the tool's timeout).

        Raises:
            ToolRetryError: the tool raised `ModelRetry` or timed out, or a hook raised `ModelRetry`, a
                `ValidationError` or a `ToolRetryError` of its own.
            ToolRetriesExhausted: the tool's retries are used up.
            ApprovalRequired, CallDeferred: the tool deferred the call.
            RuntimeError: the tool is external (`kind='external'`), e.g. an approval was given for one.
        """
        tool = self.tools[call.tool_name]
        if tool.tool_def.kind == 'external':
            # Its result comes from outside the run (deferred); an approval cannot make it callable here.
            raise RuntimeError('External tools cannot be called')
        ctx = self._call_ctx(call, tool, tool_call_approved=approved, tool_call_metadata=metadata)
        timeout = tool.tool_def.timeout
        deadline = asyncio.timeout(timeout)
        try:
            async with deadline:
                result = await self.ports.execute_tool(ctx, call, tool, args, self.capability)
        except TimeoutError as exc:
            if not deadline.expired():
                raise  # the tool's own TimeoutError, not our deadline
            raise self._retry(call, tool, f'Timed out after {timeout} seconds.') from exc
        except (pydantic.ValidationError, ModelRetry, ToolRetryError) as exc:
            # A ValidationError comes from a tool-execute hook validating the arguments or the result: the model
            # gets the errors to fix.
            if not wrap_validation_errors:
                raise
            raise self._retry(call, tool, _retry_content(exc)) from exc
        self.ctx.retries.pop(call.tool_name, None)
        return result


def _retry_content(exc: pydantic.ValidationError | ModelRetry | ToolRetryError) -> Any:
    """What a retry prompt for `exc` says (a `ToolRetryError` carries a prompt of its own)."""
    if isinstance(exc, pydantic.ValidationError):
        return exc.errors(include_url=False, include_context=False)
    if isinstance(exc, ModelRetry):
        return exc.message
    return exc
