"""A run's resolved output specification: which outputs exist, how the model is asked for them, how they are read.

`OutputSchema.build` turns an `output_type` into one of these shapes:

- text: `str` (or a `TextOutput` function) takes the response text;
- tool: each structured output is an output tool (`final_result`, or one per type for several), optionally
  alongside text;
- native / prompted: one structured output (or a choice of several) read from the response text as JSON, the
  provider constraining it to the schema (`NativeOutput`) or the instructions asking for it (`PromptedOutput`).

`DeferredToolRequests` may be added to any of them.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, Union, get_args, get_origin

from ._content import BinaryImage
from ._deferred import DeferredToolRequests
from ._output_processors import (
    ObjectOutputProcessor,
    StructuredOutputProcessor,
    TextFunctionProcessor,
    build_structured_processor,
    strip_markdown_fences,
)
from ._threads import call_maybe_async
from ._tool_def import ToolDefinition
from .exceptions import UserError
from .models._request_parameters import OutputMode, OutputObjectDefinition

if TYPE_CHECKING:
    from ._run_context import RunContext

__all__ = (
    'NativeOutputSchema',
    'OutputSchema',
    'OutputToolDef',
    'OutputValidator',
    'OutputValidatorFunc',
    'PromptedOutputSchema',
)

DEFAULT_OUTPUT_TOOL_NAME = 'final_result'
DEFAULT_OUTPUT_TOOL_DESCRIPTION = 'The final response which ends this conversation'

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
    """An output tool: its definition and how to turn its arguments into the output value."""

    tool_def: ToolDefinition
    """The definition sent to the model."""
    processor: ObjectOutputProcessor
    """Validates the arguments and calls the output function, if any."""
    max_retries: int | None = None
    """Retries for this tool, if it overrides the agent's output retries."""

    def validate_args(self, args: str | dict[str, Any] | None, *, context: Any = None) -> Any:
        """Validate raw tool call arguments (JSON string or dict) into the value the model was asked for.

        For an output function this is its argument, before the function is called (see `process`).

        Raises:
            pydantic.ValidationError: when the arguments are not valid JSON or do not match the schema.
        """
        return self.processor.unwrap(self.processor.validate(args, context=context))

    async def process(self, args: str | dict[str, Any] | None, ctx: RunContext[Any]) -> Any:
        """Validate the arguments and produce the output, calling (and awaiting) the output function if any.

        Raises:
            pydantic.ValidationError: when the arguments do not match the schema.
            ModelRetry: when the output function asks the model to try again.
        """
        return await self.processor.call(self.processor.validate(args, context=ctx.validation_context), ctx)

    def validate_partial(self, args: str | dict[str, Any] | None) -> Any | None:
        """Validate arguments that are still streaming; `None` when they can't be validated yet.

        Output functions are only called on complete arguments, so their partial output is always `None`.
        """
        if self.processor.has_function:
            return None
        try:
            return self.processor.unwrap(self.processor.validate(args, allow_partial=True))
        except ValueError:  # pydantic.ValidationError, or a partial value missing its wrapper key
            return None


@dataclass
class OutputSchema:
    """The resolved output specification of a run."""

    allows_text: bool
    """Response text is a valid final output (plain, through a `TextOutput` function, or as native/prompted JSON)."""
    allows_deferred_tool_requests: bool
    """`DeferredToolRequests` is among the output types."""
    tools: dict[str, OutputToolDef]
    """Output tools by name."""
    structured_mode: Literal['native', 'prompted'] | None = None
    """Set when the response text carries the structured output as JSON."""
    text_function: TextFunctionProcessor | None = None
    """The `TextOutput` function the response text is passed to, if any."""
    text_processor: StructuredOutputProcessor | None = None
    """How the response text is read in the native and prompted modes."""
    template: str | Literal[False] | None = None
    """The prompted output template (`{schema}` stands for the JSON schema); `False` sends no schema prompt."""
    allows_none: bool = False
    """`None` is among the output types: an empty response is the output `None` (and with structured outputs the
    model may also choose `None` through an output tool of its own)."""
    allows_image: bool = False
    """`BinaryImage` is among the output types: an image the model returns (a `FilePart`) is the output."""

    @property
    def tool_defs(self) -> list[ToolDefinition]:
        """Definitions of the output tools."""
        return [tool.tool_def for tool in self.tools.values()]

    @property
    def mode(self) -> OutputMode:
        """The output mode passed to the model."""
        if self.structured_mode is not None:
            return self.structured_mode
        if self.tools and self.allows_text:
            return 'tool_or_text'
        if not self.tools and not self.allows_text and self.allows_image:
            return 'image'
        return 'tool' if self.tools else 'text'

    @property
    def output_object(self) -> OutputObjectDefinition | None:
        """The schema the response text must follow (native and prompted modes)."""
        return self.text_processor.object_def if self.text_processor is not None else None

    async def process_text(self, text: str, ctx: RunContext[Any]) -> Any:
        """The output carried by response text: the text, a `TextOutput` function's result, or parsed JSON.

        Raises:
            pydantic.ValidationError: when structured text is not valid JSON or does not match the schema.
            ModelRetry: when an output function asks the model to try again.
        """
        if self.text_processor is not None:
            processor = self.text_processor
            validated = processor.validate(strip_markdown_fences(text), context=ctx.validation_context)
            return await processor.call(validated, ctx)
        if self.text_function is not None:
            return await self.text_function.call(text, ctx)
        return text

    def validate_partial_text(self, text: str) -> Any | None:
        """Partial structured output from streaming text; the text itself outside the native/prompted modes."""
        processor = self.text_processor
        if processor is None:
            return text if self.text_function is None else None
        if processor.has_function:
            return None
        try:
            return processor.unwrap(processor.validate(strip_markdown_fences(text), allow_partial=True))
        except ValueError:
            return None

    @classmethod
    def build(cls, output_type: Any) -> OutputSchema:
        """Resolve an `output_type` into text, tool, native or prompted output.

        Raises:
            UserError: if the spec is empty (or holds only `None` or `DeferredToolRequests`), or mixes
                `NativeOutput`/`PromptedOutput` with other outputs.
        """
        from .output import NativeOutput, PromptedOutput, TextOutput, ToolOutput

        items = flatten_output_spec(output_type)
        if not items:
            raise UserError('At least one output type must be provided.')
        # `str | None` lists `NoneType`; a bare `None` (as in `[str, None]`) lists `None` itself.
        allows_none = any(item is None or item is types.NoneType for item in items)
        if allows_none:
            items = [item for item in items if item is not None and item is not types.NoneType]
            if not items:
                raise UserError('At least one output type must be provided other than `None`.')
        allows_deferred = DeferredToolRequests in items
        items = [item for item in items if item is not DeferredToolRequests]
        if not items:
            raise UserError('At least one output type must be provided other than `DeferredToolRequests`.')
        allows_image = BinaryImage in items
        items = [item for item in items if item is not BinaryImage]

        markers: list[NativeOutput[Any] | PromptedOutput[Any]] = [
            item for item in items if isinstance(item, NativeOutput | PromptedOutput)
        ]
        marker = markers[0] if markers else None
        if marker is not None:
            if len(items) > 1:
                raise UserError(f'{type(marker).__name__} must be the only output type (besides DeferredToolRequests)')
            outputs = flatten_output_spec(marker.outputs)
            if DeferredToolRequests in outputs:
                raise UserError(f'Put DeferredToolRequests next to {type(marker).__name__}(...), not inside it')
            strict = marker.strict if isinstance(marker, NativeOutput) else None
            schema_cls = NativeOutputSchema if isinstance(marker, NativeOutput) else PromptedOutputSchema
            return schema_cls(
                allows_text=True,
                allows_deferred_tool_requests=allows_deferred,
                tools={},
                structured_mode='native' if isinstance(marker, NativeOutput) else 'prompted',
                text_processor=build_structured_processor(
                    outputs, name=marker.name, description=marker.description, strict=strict
                ),
                template=marker.template,
                allows_none=allows_none,
            )

        texts: list[Any] = [item for item in items if item is str or isinstance(item, TextOutput)]
        if len(texts) > 1:
            raise UserError('Only one `str` or `TextOutput` is allowed among the output types')
        structured = [item for item in items if item is not str and not isinstance(item, TextOutput)]
        if allows_none and structured:
            # Next to structured outputs, `None` is one more choice the model can make through its own tool.
            structured.append(types.NoneType)
        text_function = None
        if texts and isinstance(texts[0], TextOutput):
            text_function = TextFunctionProcessor(texts[0].output_function)
        return cls(
            # Only DeferredToolRequests (or None): the model still needs a way to answer, so text is allowed.
            allows_text=bool(texts) or not (structured or allows_image),
            allows_deferred_tool_requests=allows_deferred,
            tools=_output_tools(structured, ToolOutput),
            text_function=text_function,
            allows_none=allows_none,
            allows_image=allows_image,
        )


@dataclass
class NativeOutputSchema(OutputSchema):
    """The output schema of `NativeOutput`: the model answers with JSON text following `object_def`."""

    @property
    def object_def(self) -> OutputObjectDefinition | None:
        """The schema the response text must follow."""
        return self.output_object


@dataclass
class PromptedOutputSchema(OutputSchema):
    """The output schema of `PromptedOutput`: the model is asked in the prompt for JSON text following `object_def`."""

    @property
    def object_def(self) -> OutputObjectDefinition | None:
        """The schema the response text must follow."""
        return self.output_object


def _output_tools(structured: list[Any], tool_output_cls: type[Any]) -> dict[str, OutputToolDef]:
    tools: dict[str, OutputToolDef] = {}
    multiple = len(structured) > 1
    for item in structured:
        spec = item if isinstance(item, tool_output_cls) else tool_output_cls(item)
        processor = ObjectOutputProcessor(spec.output, description=spec.description, strict=spec.strict)
        object_def = processor.object_def
        name = spec.name
        if name is None:
            name = DEFAULT_OUTPUT_TOOL_NAME
            if multiple:
                # Generic names like `list[int]` lose the characters tool names can't hold.
                name += '_' + ''.join(c for c in (object_def.name or '') if c.isalnum() or c in '_-')
        # Output types that would share a name get numbered ones (`final_result_Foo_2`, ...) so each stays callable.
        base_name, number = name, 1
        while name in tools:
            number += 1
            name = f'{base_name}_{number}'
        description = object_def.description
        if not description:
            description = DEFAULT_OUTPUT_TOOL_DESCRIPTION
            if multiple:
                description = f'{object_def.name}: {description}'
        tool_def = ToolDefinition(
            name=name,
            parameters_json_schema=object_def.json_schema,
            description=description,
            outer_typed_dict_key=processor.outer_typed_dict_key,
            strict=object_def.strict,
            kind='output',
        )
        tools[name] = OutputToolDef(tool_def=tool_def, processor=processor, max_retries=spec.max_retries)
    return tools


def flatten_output_spec(spec: Any) -> list[Any]:
    """The items of an output spec: sequences and unions (`A | B`, `Union[A, B]`) are opened up."""
    if isinstance(spec, Sequence) and not isinstance(spec, str):
        items: list[Any] = []
        for item in spec:  # pyright: ignore[reportUnknownVariableType]
            items.extend(flatten_output_spec(item))
        return items
    if get_origin(spec) is Union or isinstance(spec, types.UnionType):
        return [item for arg in get_args(spec) for item in flatten_output_spec(arg)]
    return [spec]
