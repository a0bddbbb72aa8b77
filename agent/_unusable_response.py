"""Responses the run cannot use as they stand: empty, thinking only, filtered, or cut off by the token limit.

What happens to a response without tool calls and without usable output, in order:

```
no parts, or only thinking ──┬─ finish_reason 'length' ──────────→ UnexpectedModelBehavior (asking again hits
                             │                                      the same limit)
                             ├─ no parts, 'content_filter' ───────→ ContentFilterError
                             ├─ text output allowed and an earlier
                             │  response had text ────────────────→ that text is the output (if it is valid)
                             ├─ no parts ─────────────────────────→ an empty request: the same conversation is
                             │                                      sent again (an output retry)
                             └─ only thinking ────────────────────→ a retry prompt, "Please return text or ..."
```

The empty follow-up request adds nothing to what the provider sees (an empty response and an empty request
make no items in its payload), so the model simply gets another chance at the same turn.

A tool call whose arguments were cut off by the token limit fails validation on every retry; when the retries
run out, `IncompleteToolCall` says why rather than the generic "exceeded max retries".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._parts import ModelMessage, ModelResponse, TextPart, ToolCallPart
from .exceptions import ContentFilterError, IncompleteToolCall, UnexpectedModelBehavior

if TYPE_CHECKING:
    from ._output_schema import OutputSchema

__all__ = (
    'check_incomplete_tool_call',
    'check_unusable_response',
    'no_output_message',
    'recover_text',
)


def _limit(max_tokens: int | None) -> str:
    return str(max_tokens) if max_tokens else 'provider default'


def check_unusable_response(response: ModelResponse, max_tokens: int | None) -> None:
    """Fail a response with nothing to act on that asking again would not fix.

    Raises:
        UnexpectedModelBehavior: the token limit was reached before anything but thinking was written.
        ContentFilterError: the provider's content filter left the response empty.
    """
    if response.finish_reason == 'length':
        raise UnexpectedModelBehavior(
            f'Model token limit ({_limit(max_tokens)}) exceeded before any response was generated. Increase the '
            '`max_tokens` model setting, or simplify the prompt so the response fits within the limit.'
        )
    if not response.parts and response.finish_reason == 'content_filter':
        from .messages import ModelMessagesTypeAdapter

        details = response.provider_details or {}
        if reason := details.get('finish_reason'):
            message = f"Content filter triggered. Finish reason: '{reason}'"
        elif reason := details.get('block_reason'):
            message = f"Content filter triggered. Block reason: '{reason}'"
        elif refusal := details.get('refusal'):
            message = f'Content filter triggered. Refusal: {refusal!r}'
        else:
            message = 'Content filter triggered.'
        raise ContentFilterError(message, body=ModelMessagesTypeAdapter.dump_json([response]).decode())


def recover_text(history: list[ModelMessage]) -> str | None:
    """The text of the latest response that had any.

    A model may write its answer next to tool calls (the text is set aside while the tools run) and then
    return nothing, or only thinking: that earlier text is its answer.
    """
    for message in reversed(history):
        if isinstance(message, ModelResponse):
            text = ''.join(part.content for part in message.parts if isinstance(part, TextPart))
            if text:
                return text
    return None


def no_output_message(schema: OutputSchema, *, has_function_tools: bool) -> str:
    """The retry prompt for a response that produced no output, naming what the model may do instead."""
    options: list[str] = []
    if schema.tools:
        options.append('include your response in a tool call')
    elif has_function_tools:
        options.append('call a tool')
    if schema.allows_image:
        options.append('return an image')
    if schema.allows_text:
        options.insert(0, 'return text')
    return f'Please {" or ".join(options)}.'


def check_incomplete_tool_call(history: list[ModelMessage], max_tokens: int | None) -> None:
    """Explain a run that is failing because the token limit cut the last tool call's arguments short.

    Raises:
        IncompleteToolCall: the latest response stopped at the token limit inside a tool call.
    """
    last: Any = history[-1] if history else None
    if not isinstance(last, ModelResponse) or last.finish_reason != 'length' or not last.parts:
        return
    call = last.parts[-1]
    if not isinstance(call, ToolCallPart):
        return
    try:
        call.args_as_dict(raise_if_invalid=True)
    except ValueError:
        pass
    else:
        return
    # Raised outside the `except`, so the error that made the run give up stays its context.
    raise IncompleteToolCall(
        f'Model token limit ({_limit(max_tokens)}) exceeded while generating a tool call, resulting in '
        'incomplete arguments. Increase the `max_tokens` model setting, or simplify the prompt so the response '
        'fits within the limit.'
    )
