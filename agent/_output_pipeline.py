"""A final output's way through the capability output hooks: validation, then processing.

```
raw output ──→ output validation hooks ──→ the value asked for ──→ output process hooks ──→ the run's output
 (tool args,    (parse + validate; only       (`42`, not              (output function, then
  or text)       for output that is parsed)    `{'response': 42}`)      the output validators)
```

Hooks see the value the model was asked for, never the one-key object (`{'response': ...}`) or the union
envelope it is sent as: the processors unwrap it after validation and wrap it back before the output function
is called. Plain text is not parsed, so only the process hooks see it. The output validators run inside
`wrap_output_process`, so a process hook encloses the whole of turning the model's answer into the output.
This runs in the workflow in a durable run, like every other step of deciding what the run returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._content import BinaryImage
from ._output_processors import ObjectOutputProcessor, strip_markdown_fences
from .capabilities._dispatch import run_with_output_process_hooks, run_with_output_validate_hooks

if TYPE_CHECKING:
    from ._output_schema import OutputSchema, OutputToolDef, OutputValidator
    from ._parts import ToolCallPart
    from ._run_context import RunContext
    from .capabilities import AbstractCapability
    from .output import OutputContext

__all__ = ('process_image_output', 'process_none_output', 'process_text_output', 'process_tool_output')


async def process_tool_output(
    tool: OutputToolDef,
    call: ToolCallPart,
    schema: OutputSchema,
    cap: AbstractCapability[Any],
    ctx: RunContext[Any],
    validators: Sequence[OutputValidator],
    validator_ctx: RunContext[Any] | None = None,
) -> Any:
    """The output an output tool call carries, through the output hooks and the output validators.

    The output validators get `validator_ctx` if given (the run's retry count rather than the tool's), else `ctx`.

    Raises:
        pydantic.ValidationError: when the arguments do not match the schema (after the error hooks).
        ModelRetry: when a hook, the output function or an output validator asks the model to try again.
    """
    from .output import OutputContext

    processor = tool.processor
    output_context = OutputContext(
        mode='tool',
        output_type=processor.output_type,
        object_def=processor.object_def,
        has_function=processor.has_function,
        function_name=processor.function_name,
        tool_call=call,
        tool_def=tool.tool_def,
        allows_text=schema.allows_text,
        allows_deferred_tools=schema.allows_deferred_tool_requests,
    )

    async def validate(raw: Any) -> Any:
        return processor.unwrap(processor.validate(raw, context=ctx.validation_context))

    async def process(value: Any) -> Any:
        return await _validated(await processor.call(processor.rewrap(value), ctx), validator_ctx or ctx, validators)

    raw = call.args if call.args is not None else {}
    value = await run_with_output_validate_hooks(cap, ctx, output_context=output_context, output=raw, validate=validate)
    return await run_with_output_process_hooks(cap, ctx, output_context=output_context, output=value, process=process)


async def process_text_output(
    text: str,
    schema: OutputSchema,
    cap: AbstractCapability[Any],
    ctx: RunContext[Any],
    validators: Sequence[OutputValidator],
) -> Any:
    """The output response text carries (plain, through a `TextOutput` function, or native/prompted JSON).

    Raises:
        pydantic.ValidationError: when structured text is not valid JSON or does not match the schema.
        ModelRetry: when a hook, the output function or an output validator asks the model to try again.
    """
    processor = schema.text_processor
    if processor is None:
        text_function = schema.text_function

        async def process_plain(value: Any) -> Any:
            if text_function is not None:
                value = await text_function.call(value, ctx)
            return await _validated(value, ctx, validators)

        output_context = _text_context(schema, has_function=text_function is not None)
        if text_function is not None:
            output_context.function_name = text_function.function_name
        return await run_with_output_process_hooks(
            cap, ctx, output_context=output_context, output=text, process=process_plain
        )

    output_context = _text_context(schema, has_function=processor.has_function)
    output_context.object_def = processor.object_def
    if isinstance(processor, ObjectOutputProcessor):
        output_context.output_type = processor.output_type
        output_context.function_name = processor.function_name
    else:
        # Which of several outputs the model chose is only known once the text is parsed.
        output_context.output_type = None
    # The union's choice, from validation to processing (hooks only see the chosen output's value).
    kind: list[str] = []

    async def validate(raw: Any) -> Any:
        validated = processor.validate(strip_markdown_fences(raw), context=ctx.validation_context)
        if not isinstance(processor, ObjectOutputProcessor):
            kind[:] = [validated[0]]
        return processor.unwrap(validated)

    async def process(value: Any) -> Any:
        if isinstance(processor, ObjectOutputProcessor):
            output = await processor.call(processor.rewrap(value), ctx)
        elif (chosen := processor.kind_for(value, kind[0] if kind else None)) is not None:
            output = await processor.call(processor.rewrap(chosen, value), ctx)
        else:
            output = value  # a hook's value of none of the union's types (see `kind_for`)
        return await _validated(output, ctx, validators)

    value = await run_with_output_validate_hooks(
        cap, ctx, output_context=output_context, output=text, validate=validate
    )
    return await run_with_output_process_hooks(cap, ctx, output_context=output_context, output=value, process=process)


async def process_none_output(
    schema: OutputSchema,
    cap: AbstractCapability[Any],
    ctx: RunContext[Any],
    validators: Sequence[OutputValidator],
) -> Any:
    """The output `None` an empty response gives when `None` is among the output types.

    Nothing is parsed, so only the process hooks (and, inside them, the output validators) see it.

    Raises:
        ModelRetry: when a hook or an output validator asks the model to try again.
    """
    output_context = _text_context(schema, has_function=False)
    output_context.mode = 'text'
    output_context.output_type = type(None)

    async def process(value: Any) -> Any:
        return await _validated(value, ctx, validators)

    return await run_with_output_process_hooks(cap, ctx, output_context=output_context, output=None, process=process)


async def process_image_output(
    image: BinaryImage,
    schema: OutputSchema,
    cap: AbstractCapability[Any],
    ctx: RunContext[Any],
    validators: Sequence[OutputValidator],
) -> Any:
    """The output an image the model returned gives, through the output process hooks and output validators.

    Raises:
        ModelRetry: when a hook or an output validator asks the model to try again.
    """
    output_context = _text_context(schema, has_function=False)
    output_context.output_type = BinaryImage

    async def process(value: Any) -> Any:
        return await _validated(value, ctx, validators)

    return await run_with_output_process_hooks(cap, ctx, output_context=output_context, output=image, process=process)


def _text_context(schema: OutputSchema, *, has_function: bool) -> OutputContext:
    from .output import OutputContext

    # Pydantic AI reports an output-tool schema that also takes text as 'tool', whatever this response holds.
    mode = 'tool' if schema.mode == 'tool_or_text' else schema.mode
    return OutputContext(
        mode=mode,
        output_type=str,
        object_def=None,
        has_function=has_function,
        allows_text=schema.allows_text,
        allows_image=schema.allows_image,
        allows_deferred_tools=schema.allows_deferred_tool_requests,
    )


async def _validated(output: Any, ctx: RunContext[Any], validators: Sequence[OutputValidator]) -> Any:
    for validator in validators:
        output = await validator.validate(output, ctx)
    return output
