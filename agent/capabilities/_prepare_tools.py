"""`PrepareTools` and `PrepareOutputTools`: a `ToolsPrepareFunc` as a capability, changing tool definitions per step."""

from __future__ import annotations

from dataclasses import dataclass

from agent._run_context import RunContext
from agent._threads import call_maybe_async
from agent._tool import AgentDepsT, ToolsPrepareFunc
from agent._tool_def import ToolDefinition
from agent._warnings import warn_prepare_returned_none
from agent.exceptions import UserError

from ._abstract import AbstractCapability

__all__ = ('PrepareOutputTools', 'PrepareTools')


@dataclass
class PrepareTools(AbstractCapability[AgentDepsT]):
    """Runs a function over the step's tool definitions before the model sees them.

    ```python
    async def hide_dangerous(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [td for td in tool_defs if not td.name.startswith('delete_')]

    agent = Agent('openai:gpt-5.2', capabilities=[PrepareTools(hide_dangerous)])
    ```
    """

    prepare_func: ToolsPrepareFunc[AgentDepsT]
    """The function (sync or async); returning `None` hides every definition (deprecated: return `[]`)."""

    @classmethod
    def get_serialization_name(cls) -> str | None:
        # Takes a function, which an agent spec cannot express.
        return None

    async def prepare_tools(self, ctx: RunContext[AgentDepsT], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return await _prepared(self.prepare_func, ctx, tool_defs)


@dataclass
class PrepareOutputTools(AbstractCapability[AgentDepsT]):
    """Runs a function over the step's output tool definitions before the model sees them.

    ```python
    async def no_final_answer_on_first_step(ctx: RunContext[None], tool_defs: list[ToolDefinition]):
        return tool_defs if ctx.run_step > 1 else []

    agent = Agent('openai:gpt-5.2', output_type=ToolOutput(Answer), capabilities=[PrepareOutputTools(...)])
    ```

    Its hook, `prepare_output_tools`, steers the run, so in a durable run it runs in the workflow and the
    function must be deterministic.
    """

    prepare_func: ToolsPrepareFunc[AgentDepsT]
    """The function (sync or async); returning `None` hides every definition (deprecated: return `[]`)."""

    @classmethod
    def get_serialization_name(cls) -> str | None:
        # Takes a function, which an agent spec cannot express.
        return None

    async def prepare_output_tools(
        self, ctx: RunContext[AgentDepsT], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        return await _prepared(self.prepare_func, ctx, tool_defs)


async def _prepared(
    func: ToolsPrepareFunc[AgentDepsT], ctx: RunContext[AgentDepsT], tool_defs: list[ToolDefinition]
) -> list[ToolDefinition]:
    """What `func` makes of `tool_defs`: it may drop and change definitions, not add or rename any.

    Raises:
        UserError: `func` returned a definition whose name is not among those it was given.
    """
    prepared: list[ToolDefinition] | None = await call_maybe_async(func, ctx, tool_defs)
    if prepared is None:
        warn_prepare_returned_none(func)
        return []
    names = {tool_def.name for tool_def in tool_defs}
    if unknown := [tool_def.name for tool_def in prepared if tool_def.name not in names]:
        raise UserError(
            'Prepare function cannot add or rename tools. Use `FunctionToolset.add_function()` or `RenamedToolset` '
            f'instead. (It returned {", ".join(map(repr, unknown))}, which it was not given.)'
        )
    return list(prepared)
