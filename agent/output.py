"""Output specifications: how a run's final output is produced (plain text or an output tool) and validated."""

from __future__ import annotations

import inspect
import re
import types
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, Union, cast, get_args, get_origin

import pydantic
from pydantic.json_schema import GenerateJsonSchema
from typing_extensions import TypedDict, TypeVar

from ._deferred import DeferredToolRequests
from ._function_schema import GenerateToolJsonSchema
from ._threads import call_maybe_async
from ._tool_def import ToolDefinition
from .exceptions import UserError

if TYPE_CHECKING:
    from ._run_context import RunContext

__all__ = (
    'DeferredToolRequests',
    'OutputSchema',
    'OutputSpec',
    'OutputToolDef',
    'OutputValidator',
    'OutputValidatorFunc',
    'ToolOutput',
)

OutputDataT = TypeVar('OutputDataT', default=str, covariant=True)
T = TypeVar('T')

DEFAULT_OUTPUT_TOOL_NAME = 'final_result'
DEFAULT_OUTPUT_TOOL_DESCRIPTION = 'The final response which ends this conversation'


@dataclass(init=False)
class ToolOutput(Generic[OutputDataT]):
    """An output type produced by the model calling an output tool, with the tool's name and description."""

    output_type: type[OutputDataT] | Any
    """The type the tool's arguments are validated into."""
    name: str | None
    """The output tool's name (defaults to `final_result`, suffixed with the type name for unions)."""
    description: str | None
    """The output tool's description (defaults to the type's docstring)."""
    max_retries: int | None
    """Output retries for this tool (defaults to the agent's output retries)."""
    strict: bool | None
    """Whether providers should enforce the schema strictly."""

    def __init__(
        self,
        type_: type[OutputDataT] | Any,
        *,
        name: str | None = None,
        description: str | None = None,
        max_retries: int | None = None,
        strict: bool | None = None,
    ) -> None:
        self.output_type = type_
        self.name = name
        self.description = description
        self.max_retries = max_retries
        self.strict = strict


OutputSpec: TypeAlias = Any
"""What `output_type=` accepts.

One of `str`, a type, `ToolOutput(...)`, `DeferredToolRequests`, or a sequence/union of those.
"""

OutputValidatorFunc: TypeAlias = (
    Callable[['RunContext[Any]', Any], Any]
    | Callable[['RunContext[Any]', Any], Awaitable[Any]]
    | Callable[[Any], Any]
    | Callable[[Any], Awaitable[Any]]
)
"""A function that checks (and may transform) the output; raise `ModelRetry` to ask the model again."""


@dataclass
class OutputValidator:
    """An output validator function with its calling convention worked out once."""

    function: OutputValidatorFunc
    """The validator."""
    takes_ctx: bool = field(init=False)
    """Whether it receives the `RunContext` first."""

    def __post_init__(self) -> None:
        params = list(inspect.signature(self.function).parameters.values())
        self.takes_ctx = len(params) >= 2

    async def validate(self, output: Any, ctx: RunContext[Any]) -> Any:
        """Run the validator; returns the (possibly transformed) output."""
        args = (ctx, output) if self.takes_ctx else (output,)
        return await call_maybe_async(self.function, *args)


@dataclass
class OutputToolDef:
    """An output tool: its definition and how to validate its arguments into the output value."""

    tool_def: ToolDefinition
    """The definition sent to the model."""
    validator: pydantic.TypeAdapter[Any]
    """Validates the (unwrapped) arguments into the output value."""
    max_retries: int | None = None
    """Retries for this tool, if it overrides the agent's output retries."""

    def validate_args(self, args: str | dict[str, Any] | None, *, context: Any = None) -> Any:
        """Validate raw tool call arguments (JSON string or dict) into the output value.

        Raises:
            pydantic.ValidationError: when the arguments are not valid JSON or do not match the schema.
        """
        if isinstance(args, str):
            value = self.validator.validate_json(args or '{}', context=context)
        else:
            value = self.validator.validate_python(args or {}, context=context)
        key = self.tool_def.outer_typed_dict_key
        return value[key] if key is not None else value

    def validate_partial(self, args: str | dict[str, Any] | None) -> Any | None:
        """Validate arguments that are still streaming; `None` when they can't be validated yet."""
        try:
            if isinstance(args, str):
                value = self.validator.validate_json(args or '{}', experimental_allow_partial='trailing-strings')
            else:
                value = self.validator.validate_python(args or {}, experimental_allow_partial=True)
        except pydantic.ValidationError:
            return None
        key = self.tool_def.outer_typed_dict_key
        if key is None:
            return value
        return cast('dict[str, Any]', value).get(key) if isinstance(value, dict) else None


def _flatten(spec: Any) -> list[Any]:
    if isinstance(spec, Sequence) and not isinstance(spec, str):
        items: list[Any] = []
        for item in spec:  # pyright: ignore[reportUnknownVariableType]
            items.extend(_flatten(item))
        return items
    if get_origin(spec) is Union or isinstance(spec, types.UnionType):  # `Union[A, B]` and `A | B`
        return [item for arg in get_args(spec) for item in _flatten(arg)]
    return [spec]


def _type_name(tp: Any) -> str:
    name = getattr(tp, '__name__', None) or re.sub(r'[^A-Za-z0-9_]', '_', str(tp))
    return re.sub(r'[^A-Za-z0-9_-]', '_', name)


def _is_object_schema(schema: dict[str, Any]) -> bool:
    return schema.get('type') == 'object' and '$ref' not in schema


@dataclass
class OutputSchema:
    """The resolved output specification of a run."""

    allows_text: bool
    """Plain text is a valid final output."""
    allows_deferred_tool_requests: bool
    """`DeferredToolRequests` is among the output types."""
    tools: dict[str, OutputToolDef]
    """Output tools by name."""

    @property
    def tool_defs(self) -> list[ToolDefinition]:
        """Definitions of the output tools."""
        return [tool.tool_def for tool in self.tools.values()]

    @property
    def mode(self) -> str:
        """The output mode passed to the model."""
        if self.tools and self.allows_text:
            return 'tool_or_text'
        return 'tool' if self.tools else 'text'

    @classmethod
    def build(
        cls,
        output_type: OutputSpec,
        *,
        schema_generator: type[GenerateJsonSchema] = GenerateToolJsonSchema,
    ) -> OutputSchema:
        """Resolve an `output_type` into text/tool outputs.

        Raises:
            UserError: if the spec is empty or names the same output tool twice.
        """
        items = _flatten(output_type)
        if not items:
            raise UserError('output_type must name at least one type')
        allows_text = False
        allows_deferred = False
        structured: list[ToolOutput[Any]] = []
        for item in items:
            if item is str:
                allows_text = True
            elif item is DeferredToolRequests:
                allows_deferred = True
            elif isinstance(item, ToolOutput):
                structured.append(item)  # pyright: ignore[reportUnknownArgumentType]
            else:
                structured.append(ToolOutput(item))
        if not allows_text and not structured:
            # Only DeferredToolRequests: the model still needs a way to answer, so text is allowed.
            allows_text = True
        tools: dict[str, OutputToolDef] = {}
        multiple = len(structured) > 1
        for spec in structured:
            name = spec.name or (
                f'{DEFAULT_OUTPUT_TOOL_NAME}_{_type_name(spec.output_type)}' if multiple else DEFAULT_OUTPUT_TOOL_NAME
            )
            if name in tools:
                raise UserError(f'Two output types map to the same output tool name {name!r}; give them distinct names')
            adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(spec.output_type)
            schema = adapter.json_schema(schema_generator=schema_generator)
            outer_key = None
            if not _is_object_schema(schema):
                # Tool arguments must be a JSON object, so other types are wrapped in a one-key object.
                outer_key = 'response'
                wrapper = TypedDict(f'{_type_name(spec.output_type)}Wrapper', {outer_key: spec.output_type})  # type: ignore[misc]
                adapter = pydantic.TypeAdapter(wrapper)
                schema = adapter.json_schema(schema_generator=schema_generator)
            description = spec.description or schema.pop('description', None) or DEFAULT_OUTPUT_TOOL_DESCRIPTION
            schema.pop('title', None)
            tool_def = ToolDefinition(
                name=name,
                parameters_json_schema=schema,
                description=description,
                outer_typed_dict_key=outer_key,
                strict=spec.strict,
                kind='output',
            )
            tools[name] = OutputToolDef(tool_def=tool_def, validator=adapter, max_retries=spec.max_retries)
        return cls(allows_text=allows_text, allows_deferred_tool_requests=allows_deferred, tools=tools)
