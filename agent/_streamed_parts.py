"""What the streamed-result classes ask of a response's parts: which is final, whether it has content, and the
output response text carries (while it streams, and once complete)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._output_processors import strip_markdown_fences
from ._parts import TextPart, ToolCallPart
from .exceptions import UnexpectedModelBehavior

if TYPE_CHECKING:
    from ._run_context import RunContext
    from .output import OutputSchema

__all__ = ('has_content', 'is_final_part', 'is_response_event', 'text_output')


def is_final_part(part: Any, tool_name: str | None) -> bool:
    """Whether `part` carries the final result: a text part for text output, else a call of output tool `tool_name`."""
    if tool_name is None:
        return isinstance(part, TextPart)
    return isinstance(part, ToolCallPart) and part.tool_name == tool_name


async def text_output(schema: OutputSchema, text: str, ctx: RunContext[Any] | None, *, partial: bool) -> Any:
    """The output response text carries: the text, a `TextOutput` function's result, or (native/prompted) its JSON."""
    if ctx is None:
        # A stream with no run behind it (built by hand): only what needs no function.
        value = schema.validate_partial_text(text)
        if value is None:
            raise UnexpectedModelBehavior('Invalid response, unable to process text output')
        return value
    if not partial:
        return await schema.process_text(text, ctx)
    if (processor := schema.text_processor) is not None:
        validated = processor.validate(strip_markdown_fences(text), allow_partial=True, context=ctx.validation_context)
        return await processor.call(validated, ctx)
    if schema.text_function is not None:
        return await schema.text_function.call(text, ctx)
    return text


def is_response_event(event: Any) -> bool:
    """Whether `event` is one of a model response's own events (not one of the run's, e.g. a tool call's)."""
    from ._events import FinalResultEvent, PartDeltaEvent, PartEndEvent, PartStartEvent

    return isinstance(event, PartStartEvent | PartDeltaEvent | PartEndEvent | FinalResultEvent)


def has_content(part: Any) -> bool:
    """Whether `part` has any text or arguments yet."""
    return bool(getattr(part, 'content', None) or getattr(part, 'args', None))
