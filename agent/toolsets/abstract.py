"""The toolset interface: where an agent gets its tools from for each run step, and how it calls them.

A toolset answers two questions. `get_tools(ctx)` lists the tools available in the current step, each as a
`ToolsetTool` that carries the definition sent to the model, an argument validator and the toolset whose
`call_tool` runs it. `call_tool(name, args, ctx, tool)` runs one of them with validated arguments.

Toolsets compose: wrappers (`prefixed`, `filtered`, `renamed`, ...) change what an inner toolset shows or how
its tools run, and `CombinedToolset` merges several. A wrapper puts itself in the `toolset` field of the tools
it returns, so a call made through `tool.toolset.call_tool(...)` passes through every wrapper on the way down.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, Self, TypeAlias

from agent._parts import InstructionPart
from agent._run_context import RunContext
from agent._tool import AgentDepsT, ToolsPrepareFunc
from agent._tool_def import ToolDefinition

if TYPE_CHECKING:
    from .approval_required import ApprovalRequiredToolset
    from .deferred_loading import DeferredLoadingToolset
    from .filtered import FilteredToolset
    from .include_return_schemas import IncludeReturnSchemasToolset
    from .prefixed import PrefixedToolset
    from .prepared import PreparedToolset
    from .renamed import RenamedToolset
    from .set_metadata import SetMetadataToolset

__all__ = ('AbstractToolset', 'AgentToolset', 'ArgsValidator', 'ToolsetFunc', 'ToolsetInstructions', 'ToolsetTool')

ToolsetInstructions: TypeAlias = str | InstructionPart | Sequence[str | InstructionPart] | None
"""What `get_instructions` returns: text, parts, a list of either, or `None` for nothing."""


class ArgsValidator(Protocol):
    """Turns a tool call's raw arguments into a dict of validated arguments.

    `pydantic_core.SchemaValidator` and the tool function schema both provide this. Invalid arguments raise
    `pydantic.ValidationError`.
    """

    def validate_json(self, input: str | bytes, /, *, context: Any = None) -> Any:
        """Validate arguments given as a JSON object."""
        ...

    def validate_python(self, input: Any, /, *, context: Any = None) -> Any:
        """Validate arguments given as a dict."""
        ...


@dataclass(kw_only=True)
class ToolsetTool(Generic[AgentDepsT]):
    """A tool offered by a toolset in the current run step."""

    toolset: AbstractToolset[AgentDepsT]
    """The toolset whose `call_tool` runs this tool (the outermost wrapper that returned it)."""
    tool_def: ToolDefinition
    """The definition sent to the model."""
    max_retries: int
    """How many times the model may retry a failing call of this tool."""
    args_validator: ArgsValidator
    """Validates the model's raw arguments (a JSON string or a dict) into a dict of arguments."""
    post_validator: Callable[[RunContext[AgentDepsT], dict[str, Any]], Awaitable[None]] | None = None
    """Custom validation run after schema validation (e.g. `Tool.args_validator`); raises `ModelRetry`."""


class AbstractToolset(ABC, Generic[AgentDepsT]):
    """A collection of tools an agent can use.

    Subclasses implement `get_tools` and `call_tool`. Toolsets that hold resources (connections, processes)
    acquire them in `__aenter__` and release them in `__aexit__`; the agent enters its toolsets for a run.
    """

    @property
    def id(self) -> str | None:
        """A stable identifier of the toolset, or `None`.

        Durable execution needs it to find the same toolset again in another process.
        """
        return None

    @property
    def label(self) -> str:
        """A human-readable name for error messages."""
        label = type(self).__name__
        if self.id is not None:
            label += f' {self.id!r}'
        return label

    @property
    def tool_name_conflict_hint(self) -> str:
        """Advice added to the error raised when a tool name from this toolset clashes with another one."""
        return 'Rename the tool or wrap the toolset in a `PrefixedToolset` to avoid name conflicts.'

    async def for_run(self, ctx: RunContext[AgentDepsT]) -> AbstractToolset[AgentDepsT]:
        """The toolset to use for one run, asked once when the run starts (before it is entered).

        Return a fresh instance to keep per-run state apart from other runs of the same agent; the default
        shares `self` between runs.

        Args:
            ctx: The run context at the start of the run.
        """
        return self

    async def for_run_step(self, ctx: RunContext[AgentDepsT]) -> AbstractToolset[AgentDepsT]:
        """The toolset to use from this run step on, asked before each model request.

        A toolset returning a different instance takes over the lifecycle of what it replaces (exiting inner
        toolsets it drops, entering new ones); the default keeps `self`.

        Args:
            ctx: The run context of the step.
        """
        return self

    async def __aenter__(self) -> Self:
        """Acquire the toolset's resources; the default has none."""
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        """Release the toolset's resources; the default has none."""
        return None

    @abstractmethod
    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The tools available in the current run step, keyed by name.

        Args:
            ctx: The run context of the step.

        Returns:
            The tools, keyed by the name the model calls them by.
        """
        raise NotImplementedError

    @abstractmethod
    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Run a tool with validated arguments.

        Args:
            name: The name of the tool, as returned by `get_tools`.
            tool_args: The validated arguments.
            ctx: The run context of the call (with `tool_call_id`, `tool_name` and `retry` set).
            tool: The tool as returned by `get_tools`.

        Returns:
            The tool's result.
        """
        raise NotImplementedError

    async def get_instructions(self, ctx: RunContext[AgentDepsT]) -> ToolsetInstructions:
        """Instructions this toolset adds to the agent's for the current step, or `None` (the default).

        Called on the run's toolset before each model request; wrappers pass the call on and combinations
        gather their members' answers, so a wrapper can change what the toolsets it wraps say. Return a string
        (taken as dynamic), an `InstructionPart` (which says whether it is static, for prompt caching), or a
        list of either; blank ones are left out of the request.

        Args:
            ctx: The run context of the step.
        """
        return None

    def apply(self, visitor: Callable[[AbstractToolset[AgentDepsT]], None]) -> None:
        """Call `visitor` on each leaf toolset (wrappers and combinations pass it on to what they contain).

        Args:
            visitor: The function to call.
        """
        visitor(self)

    def visit_and_replace(
        self, visitor: Callable[[AbstractToolset[AgentDepsT]], AbstractToolset[AgentDepsT]]
    ) -> AbstractToolset[AgentDepsT]:
        """Return a copy of the toolset tree with each leaf replaced by `visitor(leaf)`.

        Args:
            visitor: Returns the replacement of a leaf toolset (possibly the leaf itself).

        Returns:
            The rebuilt toolset.
        """
        return visitor(self)

    def filtered(
        self, filter_func: Callable[[RunContext[AgentDepsT], ToolDefinition], bool | Awaitable[bool]]
    ) -> FilteredToolset[AgentDepsT]:
        """Only offer the tools for which `filter_func(ctx, tool_def)` is true (sync or async)."""
        from .filtered import FilteredToolset

        return FilteredToolset(self, filter_func)

    def prefixed(self, prefix: str) -> PrefixedToolset[AgentDepsT]:
        """Offer the tools under the names `f'{prefix}_{name}'`."""
        from .prefixed import PrefixedToolset

        return PrefixedToolset(self, prefix)

    def prepared(self, prepare_func: ToolsPrepareFunc[AgentDepsT]) -> PreparedToolset[AgentDepsT]:
        """Pass the tool definitions of each step through `prepare_func`, which may modify or drop them."""
        from .prepared import PreparedToolset

        return PreparedToolset(self, prepare_func)

    def renamed(self, name_map: dict[str, str]) -> RenamedToolset[AgentDepsT]:
        """Rename tools; `name_map` maps each new name to the original one."""
        from .renamed import RenamedToolset

        return RenamedToolset(self, name_map)

    def approval_required(
        self,
        approval_required_func: Callable[[RunContext[AgentDepsT], ToolDefinition, dict[str, Any]], bool] | None = None,
    ) -> ApprovalRequiredToolset[AgentDepsT]:
        """Require human approval for calls for which `approval_required_func(ctx, tool_def, args)` is true.

        Args:
            approval_required_func: Decides per call; every call needs approval if `None`.
        """
        from .approval_required import ApprovalRequiredToolset

        if approval_required_func is None:
            return ApprovalRequiredToolset(self)
        return ApprovalRequiredToolset(self, approval_required_func)

    def defer_loading(self, tool_names: Sequence[str] | None = None) -> DeferredLoadingToolset[AgentDepsT]:
        """Hide tools until tool search reveals them.

        Args:
            tool_names: The tools to hide; all of them if `None`.
        """
        from .deferred_loading import DeferredLoadingToolset

        return DeferredLoadingToolset(self, tool_names=None if tool_names is None else frozenset(tool_names))

    def include_return_schemas(self) -> IncludeReturnSchemasToolset[AgentDepsT]:
        """Send the return schemas of the tools to the model, unless a tool sets `include_return_schema=False`."""
        from .include_return_schemas import IncludeReturnSchemasToolset

        return IncludeReturnSchemasToolset(self)

    def with_metadata(self, **metadata: Any) -> SetMetadataToolset[AgentDepsT]:
        """Merge `metadata` over the metadata of every tool (these keys win)."""
        from .set_metadata import SetMetadataToolset

        return SetMetadataToolset(self, metadata)


ToolsetFunc: TypeAlias = Callable[
    [RunContext[AgentDepsT]],
    Awaitable[AbstractToolset[AgentDepsT] | None] | AbstractToolset[AgentDepsT] | None,
]
"""A function that builds a toolset for a run (or run step), sync or async; `None` means no tools."""

AgentToolset: TypeAlias = AbstractToolset[AgentDepsT] | ToolsetFunc[AgentDepsT]
"""A toolset, or a function that builds one for each run (or run step)."""
