"""`ExternalToolset`: tools the model can call whose calls are executed outside the agent run."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic_core import SchemaValidator, core_schema

from agent._run_context import RunContext
from agent._tool import AgentDepsT
from agent._tool_def import ToolDefinition
from agent.exceptions import UserError

from .abstract import AbstractToolset, ToolsetTool

__all__ = ('ExternalToolset',)

_OBJECT = SchemaValidator(
    core_schema.dict_schema(keys_schema=core_schema.str_schema(), values_schema=core_schema.any_schema())
)


class _AnyObjectArgs:
    """Accepts any JSON object of arguments as is: whoever executes the call validates it."""

    def validate_json(self, input: str | bytes, /, *, context: Any = None) -> dict[str, Any]:
        # Models sometimes send an empty string for a call without arguments.
        return _OBJECT.validate_json(input if input.strip() else '{}', context=context)

    def validate_python(self, input: Any, /, *, context: Any = None) -> dict[str, Any]:
        return _OBJECT.validate_python(input, context=context)


class ExternalToolset(AbstractToolset[AgentDepsT]):
    """Tools executed outside the agent run, e.g. by a frontend or an upstream service.

    Calls to them are never run in-process: the run ends with them in `DeferredToolRequests.calls`, and their
    results come back in `DeferredToolResults.calls` of the next run.
    """

    tool_defs: list[ToolDefinition]
    """The definitions of the tools, offered with `kind='external'`."""
    max_retries: int
    """How many times the model may retry a call whose arguments are not a JSON object."""

    def __init__(self, tool_defs: list[ToolDefinition], *, id: str | None = None, max_retries: int = 1) -> None:
        """Create a toolset of external tools.

        Args:
            tool_defs: The definitions of the tools.
            id: A stable identifier of the toolset.
            max_retries: How many times the model may retry a call whose arguments are not a JSON object.
        """
        self.tool_defs = tool_defs
        self.max_retries = max_retries
        self._id = id

    @property
    def id(self) -> str | None:
        """The identifier given at construction."""
        return self._id

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The external tools."""
        return {
            tool_def.name: ToolsetTool(
                toolset=self,
                tool_def=replace(tool_def, kind='external'),
                max_retries=self.max_retries,
                args_validator=_AnyObjectArgs(),
            )
            for tool_def in self.tool_defs
        }

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """External tools can't be called here.

        Raises:
            UserError: Always.
        """
        raise UserError(
            f'External tool {name!r} from {self.label} cannot be executed in the agent run; its calls are deferred '
            'to DeferredToolRequests.calls and answered through DeferredToolResults.calls.'
        )
