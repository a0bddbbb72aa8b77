"""The `load_capability` tool, through which the model loads a deferred capability.

A run with deferred capabilities (`defer_loading=True`) wraps its toolset in a `DeferredCapabilityLoaderToolset`,
which offers the tool alongside the others. Loading a capability marks it loaded for the rest of the run (and,
through the `load_capability` parts in the history, for later runs continuing the conversation), and returns its
instructions, with those of its toolsets, as the tool's result:
`{'instructions': ...}`, or `{}` when it has none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, NotRequired

from pydantic import Field, TypeAdapter
from typing_extensions import TypedDict

from agent._instructions import flatten_instructions, instruction_parts
from agent._parts import InstructionPart
from agent._tool_def import ToolDefinition
from agent._typed_tool_parts import LOAD_CAPABILITY_TOOL_NAME
from agent.exceptions import ModelRetry, UserError

from ._capability_owned import CapabilityOwnedToolset
from .abstract import AbstractToolset, ToolsetTool
from .wrapper import WrapperToolset

if TYPE_CHECKING:
    from agent._run_context import RunContext
    from agent._tool import AgentDepsT
else:
    from agent._tool import AgentDepsT

__all__ = (
    'LOAD_CAPABILITY_ALREADY_AVAILABLE_MESSAGE_TEMPLATE',
    'LOAD_CAPABILITY_TOOL_DESCRIPTION',
    'LOAD_CAPABILITY_TOOL_NAME',
    'DeferredCapabilityLoaderToolset',
    'LoadCapabilityArgs',
    'LoadCapabilityReturn',
)

LOAD_CAPABILITY_ALREADY_AVAILABLE_MESSAGE_TEMPLATE = (
    'Capability {capability_id!r} is already available. '
    'Use its existing instructions and tools; do not call `load_capability` for it again.'
)
"""What the model is told when it loads a capability that is already live (format with `capability_id`)."""

LOAD_CAPABILITY_TOOL_DESCRIPTION = 'Load a capability to access its full instructions and tools.'
"""The description of the `load_capability` tool."""


class LoadCapabilityArgs(TypedDict):
    """The arguments of a `load_capability` call."""

    id: Annotated[str, Field(description='The id of the capability to load.')]
    """The id of the capability to load."""


class LoadCapabilityReturn(TypedDict):
    """The result of a `load_capability` call."""

    instructions: NotRequired[str]
    """The loaded capability's instructions (with its toolsets'), if it has any."""


_ARGS_ADAPTER: TypeAdapter[LoadCapabilityArgs] = TypeAdapter(LoadCapabilityArgs)
_ARGS_SCHEMA = {**_ARGS_ADAPTER.json_schema(), 'title': 'LoadCapabilityArgs'}


@dataclass
class DeferredCapabilityLoaderToolset(WrapperToolset[AgentDepsT]):
    """The run's toolset plus the `load_capability` tool (offered first)."""

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """`load_capability`, then the wrapped toolset's tools.

        Raises:
            UserError: another tool is named `load_capability`.
        """
        tools = await super().get_tools(ctx)
        if LOAD_CAPABILITY_TOOL_NAME in tools:
            raise UserError(
                f'Tool name {LOAD_CAPABILITY_TOOL_NAME!r} is reserved for deferred capability loading. '
                'Rename your tool to avoid conflicts.'
            )
        load_tool = ToolsetTool[AgentDepsT](
            toolset=self,
            tool_def=ToolDefinition(
                name=LOAD_CAPABILITY_TOOL_NAME,
                description=LOAD_CAPABILITY_TOOL_DESCRIPTION,
                parameters_json_schema=_ARGS_SCHEMA,
                tool_kind='capability-load',
            ),
            max_retries=1,
            args_validator=_ARGS_ADAPTER.validator,  # pyright: ignore[reportArgumentType]
        )
        return {LOAD_CAPABILITY_TOOL_NAME: load_tool, **tools}

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Load the capability a `load_capability` call names; hand any other call on."""
        if tool.tool_def.tool_kind == 'capability-load':
            return await self._load(tool_args['id'], ctx)
        return await self.wrapped.call_tool(name, tool_args, ctx, tool)

    async def _load(self, capability_id: str, ctx: RunContext[AgentDepsT]) -> LoadCapabilityReturn:
        capability = ctx.capabilities.get(capability_id)
        if capability is None:
            raise ModelRetry(f'No capability found with id {capability_id!r}.')
        if capability_id in ctx.available_capability_ids:
            raise ModelRetry(LOAD_CAPABILITY_ALREADY_AVAILABLE_MESSAGE_TEMPLATE.format(capability_id=capability_id))
        parts = await instruction_parts(flatten_instructions(capability.get_instructions()), ctx)
        owned: list[CapabilityOwnedToolset[AgentDepsT]] = []

        def collect(toolset: AbstractToolset[AgentDepsT]) -> None:
            if isinstance(toolset, CapabilityOwnedToolset) and toolset.capability is capability:
                owned.append(toolset)

        self.wrapped.apply(collect)
        for toolset in owned:
            parts.extend(_instruction_parts(await toolset.wrapped.get_instructions(ctx)))
        ctx.loaded_capability_ids.add(capability_id)
        text = InstructionPart.join(parts)
        return {'instructions': text} if text is not None else {}


def _instruction_parts(found: Any) -> list[InstructionPart]:
    """A toolset's `get_instructions` answer as parts, leaving out blank ones."""
    if found is None:
        return []
    items: list[Any] = [found] if isinstance(found, str | InstructionPart) else list(found)
    parts = [item if isinstance(item, InstructionPart) else InstructionPart(str(item), dynamic=True) for item in items]
    return [part for part in parts if part.content.strip()]
