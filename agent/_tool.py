"""`Tool`: a Python function the model can call, plus the type aliases and selectors used around tools.

A `Tool` owns the function's schema (built once, from its signature and docstring) and turns it into a
`ToolDefinition` for each run step. Toolsets hold tools; the tool manager validates the model's arguments
against `Tool.function_schema`, runs the optional `args_validator` and finally calls the function.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Concatenate, Generic, Literal, Self, TypeAlias, cast

from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import SchemaValidator, core_schema
from typing_extensions import ParamSpec, TypeVar

from ._docstrings import DocstringFormat
from ._function_schema import FunctionSchema, GenerateToolJsonSchema
from ._function_schema import function_schema as build_function_schema
from ._run_context import AgentDepsT, RunContext
from ._threads import call_maybe_async, is_async_callable
from ._tool_def import ToolDefinition
from .exceptions import UserError

__all__ = (
    'AgentDepsT',
    'AgentNativeTool',
    'ArgsValidatorFunc',
    'DocstringFormat',
    'NativeToolFunc',
    'SystemPromptFunc',
    'Tool',
    'ToolAgentDepsT',
    'ToolFuncContext',
    'ToolFuncEither',
    'ToolFuncPlain',
    'ToolParams',
    'ToolPrepareFunc',
    'ToolSelector',
    'ToolSelectorFunc',
    'ToolsPrepareFunc',
    'matches_tool_selector',
)

ToolAgentDepsT = TypeVar('ToolAgentDepsT', default=object, contravariant=True)
"""Type variable for the dependencies a tool needs; `object` (any deps) by default."""

ToolParams = ParamSpec('ToolParams', default=...)
"""The parameters of a tool function."""

SystemPromptFunc: TypeAlias = (
    Callable[[RunContext[AgentDepsT]], str | None]
    | Callable[[RunContext[AgentDepsT]], Awaitable[str | None]]
    | Callable[[], str | None]
    | Callable[[], Awaitable[str | None]]
)
"""A system prompt function, with or without a `RunContext` argument, sync or async.

A function that returns `None` contributes nothing to the model request.
"""

ToolFuncContext: TypeAlias = Callable[Concatenate[RunContext[AgentDepsT], ToolParams], Any]
"""A tool function whose first argument is the `RunContext`."""

ToolFuncPlain: TypeAlias = Callable[ToolParams, Any]
"""A tool function that does not take the `RunContext`."""

ToolFuncEither: TypeAlias = ToolFuncContext[AgentDepsT, ToolParams] | ToolFuncPlain[ToolParams]
"""Either kind of tool function."""

ArgsValidatorFunc: TypeAlias = (
    Callable[Concatenate[RunContext[AgentDepsT], ToolParams], Awaitable[None]]
    | Callable[Concatenate[RunContext[AgentDepsT], ToolParams], None]
)
"""Validates a tool's arguments after schema validation and before the tool runs.

It receives the `RunContext` followed by the same (validated, converted) arguments as the tool function,
and raises `ModelRetry` to send the model a correction.
"""

ToolPrepareFunc: TypeAlias = Callable[
    [RunContext[AgentDepsT], ToolDefinition], Awaitable[ToolDefinition | None] | ToolDefinition | None
]
"""Prepares one tool's definition for a run step, sync or async; returning `None` omits the tool from the step."""

ToolsPrepareFunc: TypeAlias = Callable[
    [RunContext[AgentDepsT], list[ToolDefinition]], Awaitable[list[ToolDefinition] | None] | list[ToolDefinition] | None
]
"""Prepares all tool definitions for a run step, sync or async: it may modify them or leave some out."""

ToolSelectorFunc: TypeAlias = Callable[[RunContext[AgentDepsT], ToolDefinition], bool | Awaitable[bool]]
"""A sync or async predicate deciding whether a tool is selected."""

ToolSelector: TypeAlias = Literal['all'] | Sequence[str] | dict[str, Any] | ToolSelectorFunc[AgentDepsT]
"""Which tools a capability or toolset wrapper applies to.

- `'all'`: every tool.
- a sequence of names: the tools with those names.
- a dict: the tools whose `metadata` includes it (nested dicts are compared recursively; extra keys are fine).
- a callable: a custom sync or async predicate taking the run context and the tool definition.

The first three forms can be written in agent specs (YAML/JSON).
"""

NativeToolFunc: TypeAlias = Callable[[RunContext[AgentDepsT]], Any]
"""Produces a native (provider-executed) tool for a run step, sync or async; `None` leaves it out of the step."""

AgentNativeTool: TypeAlias = Any | NativeToolFunc[AgentDepsT]
"""A native tool, or a function that produces one for each run step."""


async def matches_tool_selector(
    selector: ToolSelector[AgentDepsT], ctx: RunContext[AgentDepsT], tool_def: ToolDefinition
) -> bool:
    """Check whether a tool definition matches a `ToolSelector`.

    A selector callable is called directly (and awaited if it returns an awaitable): selectors are cheap
    predicates, so they are not moved to a worker thread.

    Args:
        selector: The selector to check against.
        ctx: The current run context.
        tool_def: The tool definition to test.

    Returns:
        `True` if the tool matches the selector.
    """
    if isinstance(selector, str):
        # A lone name (e.g. written in a spec) is read as a one-name list rather than as its characters.
        return selector == 'all' or tool_def.name == selector
    if isinstance(selector, dict):
        return _includes(tool_def.metadata or {}, selector)
    if callable(selector):
        result = selector(ctx, tool_def)
        if inspect.isawaitable(result):
            result = await result
        return bool(result)
    return tool_def.name in selector


def _includes(actual: Any, expected: Any) -> bool:
    """Whether `expected` is contained in `actual`: dicts recursively by key, anything else by equality."""
    if not isinstance(expected, dict):
        return actual == expected
    if not isinstance(actual, dict):
        return False
    actual_dict = cast('dict[Any, Any]', actual)
    return all(
        key in actual_dict and _includes(actual_dict[key], value)
        for key, value in cast('dict[Any, Any]', expected).items()
    )


# Arguments of a tool built from a raw JSON schema are only checked to be an object.
_ANY_OBJECT_VALIDATOR = SchemaValidator(
    core_schema.dict_schema(keys_schema=core_schema.str_schema(), values_schema=core_schema.any_schema())
)


@dataclass(init=False)
class Tool(Generic[ToolAgentDepsT]):
    """A tool function for an agent."""

    function: ToolFuncEither[ToolAgentDepsT, ...]
    """The Python function called when the model calls the tool."""
    takes_ctx: bool
    """Whether the function takes the `RunContext` as its first argument."""
    max_retries: int | None
    """Maximum number of retries for this tool; `None` uses the toolset's or agent's default."""
    name: str
    """The name the model calls the tool by."""
    description: str | None
    """The description sent to the model."""
    prepare: ToolPrepareFunc[ToolAgentDepsT] | None
    """Prepares the tool definition for each step; returning `None` omits the tool from the step."""
    args_validator: ArgsValidatorFunc[ToolAgentDepsT, ...] | None
    """Validates the arguments after schema validation and before the function runs."""
    docstring_format: DocstringFormat
    """The docstring format the parameter descriptions were read with."""
    require_parameter_descriptions: bool
    """Whether a missing parameter description was an error."""
    schema_generator: type[GenerateJsonSchema]
    """The JSON schema generator the parameters schema was built with."""
    strict: bool | None
    """Whether to enforce (vendor-specific) strict JSON schema validation of calls."""
    sequential: bool
    """Whether the tool must run on its own rather than concurrently with other tools."""
    requires_approval: bool
    """Whether each call waits for human approval."""
    metadata: dict[str, Any] | None
    """Metadata for filtering and customization; never sent to the model."""
    timeout: float | None
    """Seconds the tool may run before the model gets a retry prompt; `None` for no limit."""
    defer_loading: bool
    """Whether the tool is hidden from the model until tool search reveals it."""
    include_return_schema: bool | None
    """Whether to send the return schema to the model (`None`: only with `IncludeToolReturnSchemas`)."""
    function_schema: FunctionSchema = field(repr=False)
    """The base JSON schema and validator of the parameters, and the way to call the function.

    The `prepare` function or the model may still modify the schema sent in a request.
    """

    def __init__(
        self,
        function: ToolFuncEither[ToolAgentDepsT, ToolParams],
        takes_ctx: bool | None = None,
        max_retries: int | None = None,
        name: str | None = None,
        description: str | None = None,
        prepare: ToolPrepareFunc[ToolAgentDepsT] | None = None,
        args_validator: ArgsValidatorFunc[ToolAgentDepsT, ToolParams] | None = None,
        docstring_format: DocstringFormat = 'auto',
        require_parameter_descriptions: bool = False,
        schema_generator: type[GenerateJsonSchema] = GenerateToolJsonSchema,
        strict: bool | None = None,
        sequential: bool = False,
        requires_approval: bool = False,
        metadata: dict[str, Any] | None = None,
        timeout: float | None = None,
        defer_loading: bool = False,
        include_return_schema: bool | None = None,
        function_schema: FunctionSchema | None = None,
    ) -> None:
        """Create a tool.

        Args:
            function: The Python function to call as the tool.
            takes_ctx: Whether the function takes a `RunContext` first argument; inferred if `None`.
            max_retries: Maximum number of retries for this tool; `None` uses the toolset's or agent's default.
            name: Name of the tool; the function's name if `None`.
            description: Description of the tool; taken from the function's docstring if `None`.
            prepare: Prepares the tool definition for each step, sync or async; returning `None` omits the
                tool from the step.
            args_validator: Validates the arguments after schema validation and before execution. It gets the
                `RunContext` and then the validated arguments, and raises `ModelRetry` to reject them.
            docstring_format: The format of the docstring; `'auto'` infers it.
            require_parameter_descriptions: Raise `UserError` if a parameter has no description.
            schema_generator: The JSON schema generator class to use.
            strict: Whether to enforce strict JSON schema compliance (for providers that support it).
            sequential: Whether the tool must run on its own rather than concurrently with other tools.
            requires_approval: Whether each call needs human-in-the-loop approval.
            metadata: Metadata for filtering and customization; never sent to the model.
            timeout: Seconds the tool may run before the model gets a retry prompt; `None` for no limit.
            defer_loading: Hide the tool until tool search reveals it.
            include_return_schema: Whether to send the return schema to the model; `None` leaves it to the
                `IncludeToolReturnSchemas` capability.
            function_schema: A ready-made function schema; built from `function` if `None`.

        Raises:
            UserError: If the function can't be described as a tool.
        """
        self.function = function
        if name is None:
            name = getattr(function, '__name__', None)
            if not isinstance(name, str):
                raise UserError(f'Cannot infer a tool name from {function!r}; pass `name=` to Tool()')
        self.name = name
        # The builder is imported under another name: the `function_schema` argument shadows its own.
        self.function_schema = function_schema or build_function_schema(
            function,
            schema_generator,
            takes_ctx=takes_ctx,
            docstring_format=docstring_format,
            require_parameter_descriptions=require_parameter_descriptions,
            tool_name=self.name,
        )
        self.takes_ctx = self.function_schema.takes_ctx
        self.max_retries = max_retries
        self.description = description if description is not None else self.function_schema.description
        self.prepare = prepare
        self.args_validator = args_validator
        self.docstring_format = docstring_format
        self.require_parameter_descriptions = require_parameter_descriptions
        self.schema_generator = schema_generator
        self.strict = strict
        self.sequential = sequential
        self.requires_approval = requires_approval
        self.metadata = metadata
        self.timeout = timeout
        self.defer_loading = defer_loading
        self.include_return_schema = include_return_schema

    @classmethod
    def from_schema(
        cls,
        function: Callable[..., Any],
        name: str,
        description: str | None,
        json_schema: JsonSchemaValue,
        takes_ctx: bool = False,
        sequential: bool = False,
        args_validator: ArgsValidatorFunc[Any, ...] | None = None,
    ) -> Self:
        """Create a tool from a function and a JSON schema of its arguments.

        Args:
            function: The function to call; it is called with keyword arguments only. The arguments are only
                checked to be a JSON object, not validated against `json_schema`.
            name: The unique name of the tool.
            description: Tells the model how, when and why to use the tool.
            json_schema: The JSON schema of the arguments, sent to the model as is.
            takes_ctx: Whether the function takes the `RunContext` as its first (positional) argument.
            sequential: Whether the tool must run on its own rather than concurrently with other tools.
            args_validator: Validates the arguments before execution; it still runs although schema validation
                is skipped.

        Returns:
            A tool that calls the function.
        """
        schema = FunctionSchema(
            function=function,
            description=description,
            validator=_ANY_OBJECT_VALIDATOR,
            json_schema=json_schema,
            takes_ctx=takes_ctx,
            is_async=is_async_callable(function),
        )
        return cls(
            function,
            takes_ctx=takes_ctx,
            name=name,
            description=description,
            args_validator=args_validator,
            sequential=sequential,
            function_schema=schema,
        )

    @property
    def tool_def(self) -> ToolDefinition:
        """The tool's definition before any per-step preparation."""
        return ToolDefinition(
            name=self.name,
            description=self.description,
            parameters_json_schema=self.function_schema.json_schema,
            strict=self.strict,
            sequential=self.sequential,
            metadata=self.metadata,
            timeout=self.timeout,
            defer_loading=self.defer_loading,
            include_return_schema=self.include_return_schema,
            return_schema=self.function_schema.return_schema if self.include_return_schema is not False else None,
        )

    async def prepare_tool_def(self, ctx: RunContext[ToolAgentDepsT]) -> ToolDefinition | None:
        """Get the tool definition for the current step.

        The base definition is marked `'unapproved'` if the tool requires approval that `ctx` does not carry,
        then passed through `prepare` if one is set.

        Args:
            ctx: The run context for this tool in the current step.

        Returns:
            The tool definition, or `None` if the tool should not be offered in this step.
        """
        tool_def = self.tool_def
        if self.requires_approval and not ctx.tool_call_approved:
            tool_def = dataclasses.replace(tool_def, kind='unapproved')
        if self.prepare is None:
            return tool_def
        return cast('ToolDefinition | None', await call_maybe_async(self.prepare, ctx, tool_def))

    async def validate_args(self, ctx: RunContext[ToolAgentDepsT], args: dict[str, Any]) -> None:
        """Run the custom `args_validator`, if any, on arguments that passed schema validation.

        The validator is called like the tool function (same positional and keyword handling), but always
        with the `RunContext` first.

        Args:
            ctx: The run context of the tool call.
            args: The validated arguments, keyed by parameter name.

        Raises:
            ModelRetry: If the validator rejects the arguments.
        """
        if self.args_validator is None:
            return
        validator_call = dataclasses.replace(
            self.function_schema,
            function=self.args_validator,
            takes_ctx=True,
            is_async=is_async_callable(self.args_validator),
        )
        await validator_call.call(args, ctx)
