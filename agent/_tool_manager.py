"""`ToolManager`: the tools available on one run step, and validating and executing calls to them.

Validation (with the tool-validate hooks) happens here, in the run's control flow. Execution (with the
tool-execute hooks) goes through the run's ports, so a durable run can execute it as an activity.
Every failure the model can fix (bad JSON, schema errors, `ModelRetry`, a timeout) becomes a
`RetryPromptPart` until the tool's retries run out, and then `ToolRetriesExhausted` names the tool.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic

import pydantic
from typing_extensions import TypeVar

from ._parts import RetryPromptPart, ToolCallPart
from ._ports import RunPorts
from ._run_context import RunContext
from ._tool_def import ToolDefinition
from .capabilities import run_with_tool_validate_hooks
from .exceptions import ModelRetry, ToolRetriesExhausted, ToolRetryError

if TYPE_CHECKING:
    from .capabilities import AbstractCapability
    from .toolsets import AbstractToolset, ToolsetTool

__all__ = ('ToolManager',)

DepsT = TypeVar('DepsT', default=None)


@dataclass
class ToolManager(Generic[DepsT]):
    """The tools for one run step, with validation and execution of calls to them."""

    ctx: RunContext[DepsT]
    """The run context of the step."""
    toolset: AbstractToolset[DepsT]
    """The run's assembled (non-output) toolset."""
    capability: AbstractCapability[DepsT]
    """The run's combined capability (hooks)."""
    ports: RunPorts
    """Where tool executions are performed."""
    tools: dict[str, ToolsetTool[DepsT]] = field(default_factory=dict[str, 'ToolsetTool[DepsT]'])
    """The step's tools by name, after `get_tools`."""
    _failed_this_step: set[str] = field(default_factory=set[str])

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
        return cls(ctx=ctx, toolset=toolset, capability=capability, ports=ports, tools=tools)

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
        if call.tool_name in self._failed_this_step:
            # Several failing calls of one tool in one response cost a single retry.
            return ToolRetryError(prompt)
        used = self.ctx.retries.get(call.tool_name, 0)
        if used >= tool.max_retries:
            raise ToolRetriesExhausted(call.tool_name, tool.max_retries, prompt)
        self.ctx.retries[call.tool_name] = used + 1
        self._failed_this_step.add(call.tool_name)
        return ToolRetryError(prompt)

    def unknown_tool_prompt(self, call: ToolCallPart) -> RetryPromptPart:
        """The retry prompt for a call to a tool that does not exist this step."""
        names = sorted(self.tools)
        available = f'Available tools: {", ".join(map(repr, names))}' if names else 'No tools are available.'
        return RetryPromptPart(
            f'Unknown tool name: {call.tool_name!r}. {available}',
            tool_name=call.tool_name,
            tool_call_id=call.tool_call_id,
        )

    async def validate_call(
        self, call: ToolCallPart, *, approved: bool = False, metadata: Any = None
    ) -> dict[str, Any]:
        """Validate a call's arguments (with the tool-validate hooks).

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
        except pydantic.ValidationError as exc:
            raise self._retry(call, tool, exc.errors(include_url=False, include_context=False)) from exc
        except ModelRetry as exc:
            raise self._retry(call, tool, exc.message) from exc
        except ToolRetryError as exc:
            raise self._retry(call, tool, exc) from exc

    async def handle_call(self, call: ToolCallPart, *, approved: bool = False, metadata: Any = None) -> Any:
        """Validate a call's arguments and execute it: what the run does for each function tool call.

        For code that calls the step's tools itself (`ctx.tool_manager`), e.g. a tool that runs other tools.

        Raises:
            ToolRetryError: the tool does not exist, its arguments are invalid, or it asked for a retry; the
                error's `tool_retry` is the prompt to send back to the model.
            ToolRetriesExhausted: the tool's retries are used up.
            ApprovalRequired, CallDeferred: the tool deferred the call.
        """
        if call.tool_name not in self.tools:
            raise ToolRetryError(self.unknown_tool_prompt(call))
        args = await self.validate_call(call, approved=approved, metadata=metadata)
        return await self.execute_call(call, args, approved=approved, metadata=metadata)

    async def execute_call(
        self, call: ToolCallPart, args: dict[str, Any], *, approved: bool = False, metadata: Any = None
    ) -> Any:
        """Execute a validated call through the run's ports (with the tool-execute hooks and the tool's timeout).

        Raises:
            ToolRetryError: the tool raised `ModelRetry` or timed out, or a hook raised `ModelRetry`, a
                `ValidationError` or a `ToolRetryError` of its own.
            ToolRetriesExhausted: the tool's retries are used up.
            ApprovalRequired, CallDeferred: the tool deferred the call.
        """
        tool = self.tools[call.tool_name]
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
        except ModelRetry as exc:
            raise self._retry(call, tool, exc.message) from exc
        except ToolRetryError as exc:
            raise self._retry(call, tool, exc) from exc
        except pydantic.ValidationError as exc:
            # A tool-execute hook validating the arguments or the result: the model gets the errors to fix.
            raise self._retry(call, tool, exc.errors(include_url=False, include_context=False)) from exc
        self.ctx.retries.pop(call.tool_name, None)
        return result
