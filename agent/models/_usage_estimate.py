"""The token estimate of the fake models (`TestModel`, `FunctionModel`), which report no usage of their own.

The numbers are Pydantic AI's, so ported snapshot tests see the same usage: a fixed overhead of 50 input tokens
per request, plus one token per word of every prompt, tool result and retry prompt in the history (instructions
are not counted); output tokens are the words of every response in the history, a tool call counting one more
than the words of its JSON arguments. Words are split on whitespace and `",.:`; binary content counts one
token per byte.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from agent._content import BinaryContent
from agent._parts import (
    BaseToolCallPart,
    BaseToolReturnPart,
    FilePart,
    ModelMessage,
    ModelRequest,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    UserPromptPart,
)
from agent.usage import RequestUsage

__all__ = ('REQUEST_OVERHEAD_TOKENS', 'estimate_string_tokens', 'estimate_usage')

REQUEST_OVERHEAD_TOKENS = 50
"""Input tokens every estimated request starts with (roughly what real providers add)."""

_WORD_SEPARATORS = re.compile(r'[\s",.:]+')


def estimate_string_tokens(content: str | Sequence[Any]) -> int:
    """The estimated tokens of a text, or of user content (text items by their words, binary by its bytes)."""
    if not content:
        return 0
    if isinstance(content, str):
        return len(_WORD_SEPARATORS.split(content.strip()))
    tokens = 0
    for item in content:
        if isinstance(item, str):
            tokens += len(_WORD_SEPARATORS.split(item.strip()))
        elif isinstance(item, BinaryContent):
            tokens += len(item.data)
        elif getattr(item, 'kind', None) == 'text' and isinstance(text := getattr(item, 'content', None), str):
            tokens += len(_WORD_SEPARATORS.split(text.strip()))
        # URLs are not counted: their size is unknown without fetching them.
    return tokens


def estimate_usage(messages: Iterable[ModelMessage]) -> RequestUsage:
    """Estimate the usage of a request from the whole conversation, its response included."""
    input_tokens = REQUEST_OVERHEAD_TOKENS
    output_tokens = 0
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, SystemPromptPart | UserPromptPart):
                    input_tokens += estimate_string_tokens(part.content)
                elif isinstance(part, RetryPromptPart):
                    input_tokens += estimate_string_tokens(part.model_response())
                else:
                    input_tokens += estimate_string_tokens(part.model_response_str())
        else:
            for part in message.parts:
                if isinstance(part, TextPart | ThinkingPart):
                    output_tokens += estimate_string_tokens(part.content)
                elif isinstance(part, BaseToolCallPart):
                    output_tokens += 1 + estimate_string_tokens(part.args_as_json_str())
                elif isinstance(part, BaseToolReturnPart):
                    output_tokens += estimate_string_tokens(part.model_response_str())
                elif isinstance(part, FilePart):
                    output_tokens += estimate_string_tokens([part.content])
    return RequestUsage(input_tokens=input_tokens, output_tokens=output_tokens)
