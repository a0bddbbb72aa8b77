"""Output specifications: how a run's final output is asked for, produced and validated.

`output_type=` takes `str`, a type, an output function, or a marker choosing how the model produces it:

- `ToolOutput(T)`: the model calls an output tool whose arguments are a `T` (the default for types);
- `NativeOutput(T)`: the provider constrains the response text to `T`'s JSON schema;
- `PromptedOutput(T)`: the instructions ask for JSON matching `T`'s schema, read from the response text;
- `TextOutput(f)`: the response text is passed to `f`.

An output function is called with the validated arguments (a `RunContext` first, if it takes one) and may be
async; raising `ModelRetry` in it asks the model to try again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeAlias

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema
from typing_extensions import TypeVar

from ._deferred import DeferredToolRequests
from ._output_processors import inline_defs
from ._output_schema import OutputSchema, OutputToolDef, OutputValidator, OutputValidatorFunc
from ._parts import ToolCallPart
from ._tool_def import ToolDefinition
from .exceptions import UserError
from .models._request_parameters import OutputMode, OutputObjectDefinition, StructuredOutputMode

if TYPE_CHECKING:
    from ._run_context import RunContext

__all__ = (
    'DeferredToolRequests',
    'NativeOutput',
    'OutputContext',
    'OutputDataT',
    'OutputMode',
    'OutputObjectDefinition',
    'OutputSchema',
    'OutputSpec',
    'OutputToolDef',
    'OutputTypeOrFunction',
    'OutputValidator',
    'OutputValidatorFunc',
    'PromptedOutput',
    'StructuredDict',
    'StructuredOutputMode',
    'TextOutput',
    'TextOutputFunc',
    'ToolOutput',
)

OutputDataT = TypeVar('OutputDataT', default=str, covariant=True)
"""The type of a run's output."""
T_co = TypeVar('T_co', covariant=True)

OutputTypeOrFunction: TypeAlias = type[Any] | Callable[..., Any]
"""An output type, or an output function whose (awaited) return value is the output."""

TextOutputFunc: TypeAlias = Callable[['RunContext[Any]', str], Any] | Callable[[str], Any]
"""A function turning the response text into the output; it may take a `RunContext` first and may be async."""


@dataclass(init=False)
class ToolOutput(Generic[OutputDataT]):
    """An output produced by the model calling an output tool, with the tool's name and description."""

    output: OutputTypeOrFunction
    """The type the tool's arguments are validated into, or an output function taking them."""
    name: str | None
    """The output tool's name (defaults to `final_result`, suffixed with the type name for several outputs)."""
    description: str | None
    """The output tool's description (defaults to the type's or function's docstring)."""
    max_retries: int | None
    """Output retries for this tool (defaults to the agent's output retries)."""
    strict: bool | None
    """Whether providers should enforce the schema strictly."""

    def __init__(
        self,
        type_: OutputTypeOrFunction,
        *,
        name: str | None = None,
        description: str | None = None,
        max_retries: int | None = None,
        strict: bool | None = None,
    ) -> None:
        self.output = type_
        self.name = name
        self.description = description
        self.max_retries = max_retries
        self.strict = strict

    @property
    def output_type(self) -> OutputTypeOrFunction:
        """Older name of `output`."""
        return self.output


@dataclass(init=False)
class NativeOutput(Generic[OutputDataT]):
    """An output the provider constrains the response text to (its JSON schema mode), read as JSON.

    With several outputs the model picks one: the response is `{'result': {'kind': <name>, 'data': {...}}}`.
    """

    outputs: OutputTypeOrFunction | Sequence[OutputTypeOrFunction]
    """The output types or functions."""
    name: str | None
    """The name of the schema sent to the provider (defaults to the type's or function's name)."""
    description: str | None
    """The description sent with the schema (defaults to the type's or function's docstring)."""
    strict: bool | None
    """Whether to ask the provider for strict schema adherence (`None`: when the schema allows it)."""
    template: str | Literal[False] | None
    """Instructions sent with the schema, for models that need it in the prompt too; `{schema}` is replaced by the
    JSON schema. `False` sends none."""

    def __init__(
        self,
        outputs: OutputTypeOrFunction | Sequence[OutputTypeOrFunction],
        *,
        name: str | None = None,
        description: str | None = None,
        strict: bool | None = None,
        template: str | Literal[False] | None = None,
    ) -> None:
        self.outputs = outputs
        self.name = name
        self.description = description
        self.strict = strict
        self.template = template


@dataclass(init=False)
class PromptedOutput(Generic[OutputDataT]):
    """An output asked for in the instructions (with its JSON schema) and read from the response text as JSON.

    Works with any model, tools or not; with several outputs the model picks one as in `NativeOutput`.
    """

    outputs: OutputTypeOrFunction | Sequence[OutputTypeOrFunction]
    """The output types or functions."""
    name: str | None
    """The name of the output (defaults to the type's or function's name)."""
    description: str | None
    """The description of the output (defaults to the type's or function's docstring)."""
    template: str | Literal[False] | None
    """The instructions asking for the output; `{schema}` is replaced by the JSON schema (appended if absent).
    `None` uses the model profile's template; `False` sends no instructions."""

    def __init__(
        self,
        outputs: OutputTypeOrFunction | Sequence[OutputTypeOrFunction],
        *,
        name: str | None = None,
        description: str | None = None,
        template: str | Literal[False] | None = None,
    ) -> None:
        self.outputs = outputs
        self.name = name
        self.description = description
        self.template = template


@dataclass
class TextOutput(Generic[OutputDataT]):
    """Plain text output passed through a function (taking the text, after an optional `RunContext`)."""

    output_function: TextOutputFunc
    """The function producing the output from the response text; it may be async and may raise `ModelRetry`."""


@dataclass
class OutputContext:
    """What is known about the output being processed (given to code that inspects or wraps output handling)."""

    mode: OutputMode
    """The output mode of the run's output schema."""
    output_type: type[Any] | None
    """The type the model produces (for an output function: its argument's type)."""
    object_def: OutputObjectDefinition | None
    """The schema, name and description of structured output."""
    has_function: bool
    """Whether an output function is called on the validated value."""
    function_name: str | None = None
    """The output function's name, when known."""
    tool_call: ToolCallPart | None = None
    """The output tool call, when the output came through one."""
    tool_def: ToolDefinition | None = None
    """The output tool's definition, when the output came through one."""
    allows_text: bool = False
    """Whether text is an accepted output."""
    allows_image: bool = False
    """Whether an image is an accepted output."""
    allows_deferred_tools: bool = False
    """Whether `DeferredToolRequests` is an accepted output."""


def StructuredDict(
    json_schema: JsonSchemaValue, name: str | None = None, description: str | None = None
) -> type[JsonSchemaValue]:
    """A `dict[str, Any]` type whose JSON schema is `json_schema`, for structured output without a model class.

    Args:
        json_schema: An object JSON schema; `$defs` references are inlined.
        name: The output's name (defaults to the schema's `title`).
        description: The output's description (defaults to the schema's `description`).

    Returns:
        A `dict` subclass to use as (or in) `output_type`.

    Raises:
        UserError: if the schema is not an object schema, or is recursive.
    """
    # Inlined first: a schema whose root is a `$ref` to an object definition is an object schema too.
    schema = inline_defs(json_schema) if '$defs' in json_schema else dict(json_schema)
    if schema.get('type') != 'object':
        raise UserError("StructuredDict needs an object JSON schema ({'type': 'object', ...})")
    if name:
        schema['title'] = name
    if description:
        schema['description'] = description

    class _StructuredDict(dict[str, Any]):
        __is_model_like__ = True

        @classmethod
        def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
            return core_schema.dict_schema(keys_schema=core_schema.str_schema(), values_schema=core_schema.any_schema())

        @classmethod
        def __get_pydantic_json_schema__(
            cls, core: core_schema.CoreSchema, handler: GetJsonSchemaHandler
        ) -> JsonSchemaValue:
            return dict(schema)

    _StructuredDict.__name__ = schema.get('title') or 'StructuredDict'
    return _StructuredDict


OutputSpec: TypeAlias = Any
"""What `output_type=` accepts.

One of `str`, a type, an output function, `ToolOutput(...)`, `NativeOutput(...)`, `PromptedOutput(...)`,
`TextOutput(...)`, `DeferredToolRequests`, or a sequence/union of those.
"""
