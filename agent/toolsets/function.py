"""`FunctionToolset`: a toolset of Python functions, registered with decorators or as `Tool` objects."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, cast, overload

from pydantic.json_schema import GenerateJsonSchema

from agent._docstrings import DocstringFormat
from agent._function_schema import GenerateToolJsonSchema, _takes_ctx  # pyright: ignore[reportPrivateUsage]
from agent._instructions import InstructionSource, flatten_instructions, instruction_parts
from agent._parts import InstructionPart
from agent._run_context import RunContext
from agent._tool import (
    AgentDepsT,
    ArgsValidatorFunc,
    Tool,
    ToolFuncContext,
    ToolFuncEither,
    ToolFuncPlain,
    ToolParams,
    ToolPrepareFunc,
)
from agent.exceptions import UserError

from .abstract import AbstractToolset, ToolsetTool

__all__ = ('FunctionToolset',)


class FunctionToolset(AbstractToolset[AgentDepsT]):
    """A toolset of Python functions.

    The keyword arguments of the constructor are defaults for the tools in the toolset: they apply to every
    tool that leaves the setting unset (`None`, or `False` for flags), and `metadata` is merged under the
    tool's own.
    """

    tools: dict[str, Tool[AgentDepsT]]
    """The tools, keyed by name (with the toolset's defaults applied)."""
    max_retries: int
    """Default maximum number of retries of a tool."""
    timeout: float | None
    """Default timeout of a tool, in seconds."""
    docstring_format: DocstringFormat
    """Default docstring format of functions added to the toolset."""
    require_parameter_descriptions: bool
    """Default for requiring parameter descriptions of functions added to the toolset."""
    schema_generator: type[GenerateJsonSchema]
    """Default JSON schema generator of functions added to the toolset."""
    strict: bool | None
    """Default strictness of tool schemas."""
    sequential: bool
    """Whether all tools must run on their own rather than concurrently with other tools."""
    requires_approval: bool
    """Whether all tools need human approval for each call."""
    metadata: dict[str, Any] | None
    """Metadata merged under each tool's own."""
    include_return_schema: bool | None
    """Default for sending tools' return schemas to the model."""

    def __init__(
        self,
        tools: Sequence[Tool[AgentDepsT] | ToolFuncEither[AgentDepsT, ...]] = (),
        *,
        max_retries: int = 1,
        timeout: float | None = None,
        id: str | None = None,
        docstring_format: DocstringFormat = 'auto',
        require_parameter_descriptions: bool = False,
        schema_generator: type[GenerateJsonSchema] = GenerateToolJsonSchema,
        strict: bool | None = None,
        sequential: bool = False,
        requires_approval: bool = False,
        metadata: dict[str, Any] | None = None,
        defer_loading: bool = False,
        include_return_schema: bool | None = None,
        instructions: InstructionSource | Sequence[InstructionSource] | None = None,
    ) -> None:
        """Create a toolset.

        Args:
            tools: Tools to add: `Tool` objects, or functions (whether they take the `RunContext` is inferred).
            max_retries: Default maximum number of retries of a tool.
            timeout: Default timeout of a tool, in seconds.
            id: A stable identifier of the toolset.
            docstring_format: Default docstring format of functions added to the toolset.
            require_parameter_descriptions: Default for requiring parameter descriptions.
            schema_generator: Default JSON schema generator.
            strict: Default strictness of tool schemas.
            sequential: Make every tool run on its own rather than concurrently with other tools.
            requires_approval: Make every tool call need human approval.
            metadata: Metadata merged under each tool's own.
            defer_loading: Hide every tool until tool search reveals it.
            include_return_schema: Default for sending tools' return schemas to the model.
            instructions: Instructions added to the agent's while the toolset is in use: a string, a `TemplateStr`,
                a function (sync or async, taking the `RunContext` or nothing), or a sequence of these.
        """
        self.max_retries = max_retries
        self.timeout = timeout
        self._id = id
        self.docstring_format = docstring_format
        self.require_parameter_descriptions = require_parameter_descriptions
        self.schema_generator = schema_generator
        self.strict = strict
        self.sequential = sequential
        self.requires_approval = requires_approval
        self.metadata = metadata
        # Private: the public name is the `defer_loading()` method every toolset has.
        self._defer_loading = defer_loading
        self.include_return_schema = include_return_schema
        self._instructions: list[InstructionSource] = flatten_instructions(instructions)
        self.tools = {}
        for item in tools:
            if isinstance(item, Tool):
                self.add_tool(cast('Tool[AgentDepsT]', item))
            else:
                self.add_function(item)

    @property
    def id(self) -> str | None:
        """The identifier given at construction."""
        return self._id

    @overload
    def tool(self, func: ToolFuncContext[AgentDepsT, ToolParams], /) -> ToolFuncContext[AgentDepsT, ToolParams]: ...

    @overload
    def tool(
        self,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        retries: int | None = None,
        prepare: ToolPrepareFunc[AgentDepsT] | None = None,
        args_validator: ArgsValidatorFunc[AgentDepsT, ToolParams] | None = None,
        docstring_format: DocstringFormat | None = None,
        require_parameter_descriptions: bool | None = None,
        schema_generator: type[GenerateJsonSchema] | None = None,
        strict: bool | None = None,
        sequential: bool | None = None,
        requires_approval: bool | None = None,
        metadata: dict[str, Any] | None = None,
        timeout: float | None = None,
        defer_loading: bool | None = None,
        include_return_schema: bool | None = None,
    ) -> Callable[[ToolFuncContext[AgentDepsT, ToolParams]], ToolFuncContext[AgentDepsT, ToolParams]]: ...

    def tool(self, func: Callable[..., Any] | None = None, /, **options: Any) -> Any:
        """Register a function that takes the `RunContext` first as a tool; usable as `@tool` or `@tool(...)`.

        The keyword arguments are those of `add_function`. A function whose first parameter is not annotated
        as a `RunContext` is registered as a plain tool, with a `DeprecationWarning` (use `tool_plain`).
        """

        def register(function: Callable[..., Any]) -> Callable[..., Any]:
            takes_ctx = _takes_ctx(function)
            if not takes_ctx:
                warnings.warn(
                    'Passing a function without `RunContext` to `FunctionToolset.tool()` is deprecated: register '
                    f'{getattr(function, "__name__", function)!r} with `tool_plain()` instead.',
                    DeprecationWarning,
                    stacklevel=2 if func is None else 3,
                )
            self.add_function(function, takes_ctx=takes_ctx, **options)
            return function

        return register if func is None else register(func)

    @overload
    def tool_plain(self, func: ToolFuncPlain[ToolParams], /) -> ToolFuncPlain[ToolParams]: ...

    @overload
    def tool_plain(
        self,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        retries: int | None = None,
        prepare: ToolPrepareFunc[AgentDepsT] | None = None,
        args_validator: ArgsValidatorFunc[AgentDepsT, ToolParams] | None = None,
        docstring_format: DocstringFormat | None = None,
        require_parameter_descriptions: bool | None = None,
        schema_generator: type[GenerateJsonSchema] | None = None,
        strict: bool | None = None,
        sequential: bool | None = None,
        requires_approval: bool | None = None,
        metadata: dict[str, Any] | None = None,
        timeout: float | None = None,
        defer_loading: bool | None = None,
        include_return_schema: bool | None = None,
    ) -> Callable[[ToolFuncPlain[ToolParams]], ToolFuncPlain[ToolParams]]: ...

    def tool_plain(self, func: Callable[..., Any] | None = None, /, **options: Any) -> Any:
        """Register a function that does not take the `RunContext` as a tool; usable as `@tool_plain` or
        `@tool_plain(...)`.

        The keyword arguments are those of `add_function`.
        """

        def register(function: Callable[..., Any]) -> Callable[..., Any]:
            self.add_function(function, takes_ctx=False, **options)
            return function

        return register if func is None else register(func)

    def instructions(self, func: Callable[..., Any], /) -> Callable[..., Any]:
        """Register a function (sync or async, taking the `RunContext` or nothing) producing instructions.

        It is called before each model request while the toolset is in use; returning `None` adds nothing.
        """
        self._instructions.append(func)
        return func

    async def get_instructions(self, ctx: RunContext[AgentDepsT]) -> list[InstructionPart] | None:
        """The toolset's instructions rendered for this step, one part each (`None` if none renders any text).

        Plain strings are static parts; what functions and templates render is dynamic.
        """
        return await instruction_parts(self._instructions, ctx) or None

    def add_function(
        self,
        func: ToolFuncEither[AgentDepsT, ToolParams],
        takes_ctx: bool | None = None,
        name: str | None = None,
        description: str | None = None,
        retries: int | None = None,
        prepare: ToolPrepareFunc[AgentDepsT] | None = None,
        args_validator: ArgsValidatorFunc[AgentDepsT, ToolParams] | None = None,
        docstring_format: DocstringFormat | None = None,
        require_parameter_descriptions: bool | None = None,
        schema_generator: type[GenerateJsonSchema] | None = None,
        strict: bool | None = None,
        sequential: bool | None = None,
        requires_approval: bool | None = None,
        metadata: dict[str, Any] | None = None,
        timeout: float | None = None,
        defer_loading: bool | None = None,
        include_return_schema: bool | None = None,
    ) -> None:
        """Add a function as a tool; every option left `None` takes the toolset's default.

        Args:
            func: The function.
            takes_ctx: Whether it takes the `RunContext` first; inferred if `None`.
            name: The tool name; the function's name if `None`.
            description: The description; from the docstring if `None`.
            retries: Maximum number of retries of the tool.
            prepare: Prepares the tool definition for each step; returning `None` omits the tool.
            args_validator: Validates the arguments after schema validation; raises `ModelRetry` to reject them.
            docstring_format: The format of the docstring.
            require_parameter_descriptions: Raise `UserError` if a parameter has no description.
            schema_generator: The JSON schema generator class.
            strict: Whether to enforce strict JSON schema compliance.
            sequential: Whether the tool must run on its own.
            requires_approval: Whether each call needs human approval.
            metadata: Metadata of the tool, merged over the toolset's.
            timeout: Timeout of the tool, in seconds.
            defer_loading: Hide the tool until tool search reveals it.
            include_return_schema: Whether to send the return schema to the model.

        Raises:
            UserError: If the function can't be a tool, or a tool with the same name exists.
        """
        tool = Tool(
            func,
            takes_ctx=takes_ctx,
            max_retries=retries,
            name=name,
            description=description,
            prepare=prepare,
            args_validator=args_validator,
            docstring_format=self.docstring_format if docstring_format is None else docstring_format,
            require_parameter_descriptions=(
                self.require_parameter_descriptions
                if require_parameter_descriptions is None
                else require_parameter_descriptions
            ),
            schema_generator=self.schema_generator if schema_generator is None else schema_generator,
            strict=strict,
            sequential=self.sequential if sequential is None else sequential,
            requires_approval=self.requires_approval if requires_approval is None else requires_approval,
            metadata=metadata,
            timeout=timeout,
            defer_loading=self._defer_loading if defer_loading is None else defer_loading,
            include_return_schema=include_return_schema,
        )
        self._register(self._with_defaults(tool, flags=False))

    def add_tool(self, tool: Tool[AgentDepsT]) -> None:
        """Add a `Tool`; settings it leaves unset take the toolset's defaults (the tool itself is not changed).

        Args:
            tool: The tool.

        Raises:
            UserError: If a tool with the same name exists.
        """
        self._register(self._with_defaults(tool, flags=True))

    def _register(self, tool: Tool[AgentDepsT]) -> None:
        if tool.name in self.tools:
            raise UserError(f'Tool name conflicts with existing tool: {tool.name!r} is already in {self.label}')
        self.tools[tool.name] = tool

    def _with_defaults(self, tool: Tool[AgentDepsT], *, flags: bool) -> Tool[AgentDepsT]:
        """The tool with the toolset's defaults filled in, as a copy if anything changes.

        A flag left `False` can't be told apart from one set to `False`, so flags are only filled in (`flags=True`)
        for `Tool` objects; `add_function` resolves them itself from its `None` defaults.
        """
        changes: dict[str, Any] = {}
        if tool.max_retries is None:
            changes['max_retries'] = self.max_retries
        if tool.timeout is None and self.timeout is not None:
            changes['timeout'] = self.timeout
        if tool.strict is None and self.strict is not None:
            changes['strict'] = self.strict
        if tool.include_return_schema is None and self.include_return_schema is not None:
            changes['include_return_schema'] = self.include_return_schema
        defaults = {'sequential': self.sequential, 'requires_approval': self.requires_approval}
        defaults['defer_loading'] = self._defer_loading
        for flag, default in defaults.items() if flags else ():
            if default and not getattr(tool, flag):
                changes[flag] = True
        if self.metadata:
            changes['metadata'] = {**self.metadata, **(tool.metadata or {})}
        if not changes:
            return tool
        # `Tool` keeps its schema from construction, so a shallow copy with the new settings is enough.
        result = copy.copy(tool)
        for attribute, value in changes.items():
            setattr(result, attribute, value)
        return result

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The tools whose `prepare` (if any) keeps them in this step.

        Each tool is prepared with a context naming it, with its retry count and maximum.

        A `prepare` function may rename its tool for the step; the tool is then offered (and called) by the new name.

        Raises:
            UserError: If a renamed tool's name collides with another tool's.
        """
        tools: dict[str, ToolsetTool[AgentDepsT]] = {}
        for name, tool in self.tools.items():
            max_retries = tool.max_retries if tool.max_retries is not None else self.max_retries
            tool_ctx = replace(ctx, tool_name=name, retry=ctx.retries.get(name, 0), max_retries=max_retries)
            tool_def = await tool.prepare_tool_def(tool_ctx)
            if tool_def is None:
                continue
            if tool_def.name in tools:
                if tool_def.name != name:
                    raise UserError(f'Renaming tool {name!r} to {tool_def.name!r} conflicts with existing tool.')
                raise UserError(f'Tool name conflicts with previously renamed tool: {name!r}.')
            tools[tool_def.name] = ToolsetTool(
                toolset=self,
                tool_def=tool_def,
                max_retries=max_retries,
                args_validator=tool.function_schema,
                post_validator=tool.validate_args if tool.args_validator is not None else None,
            )
        return tools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call the tool's function with the validated arguments.

        Raises:
            UserError: If the toolset has no tool with this name.
        """
        function_tool: Tool[AgentDepsT] | None = None
        if tool.tool_def.name == name:
            # The step's tool carries its function's schema, which finds the function even if `prepare` renamed it.
            function_tool = next((t for t in self.tools.values() if t.function_schema is tool.args_validator), None)
        function_tool = function_tool or self.tools.get(name)
        if function_tool is None:
            raise UserError(f'Unknown tool {name!r}: {self.label} has no tool with this name')
        return await function_tool.function_schema.call(tool_args, ctx)


class AgentFunctionToolset(FunctionToolset[AgentDepsT]):
    """The toolset of the tools given to an agent itself (`Agent(tools=...)`, `@agent.tool`)."""

    @property
    def label(self) -> str:
        """`'the agent'`, which is how a clash with one of these tools is best explained."""
        return 'the agent'
