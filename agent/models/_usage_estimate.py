"""A rough, deterministic token estimate for models that report no usage (test and function models)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import pydantic_core

from agent._parts import (
    BaseToolCallPart,
    BaseToolReturnPart,
    FilePart,
    ModelMessage,
    ModelRequest,
    ModelResponsePart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    UserPromptPart,
)
from agent.usage import RequestUsage

__all__ = ('count_words', 'estimate_usage')

_WORD_SEPARATORS = re.compile(r'[\s",.:;{}\[\]()]+')


def count_words(text: str) -> int:
    """The number of words in `text`, treating JSON punctuation as separators."""
    return len([word for word in _WORD_SEPARATORS.split(text) if word])


def estimate_usage(messages: Sequence[ModelMessage], response_parts: Sequence[ModelResponsePart]) -> RequestUsage:
    """Estimate a request's usage: input tokens are the words of the whole history sent, output tokens the
    words of the response."""
    input_words = 0
    for message in messages:
        if isinstance(message, ModelRequest):
            input_words += count_words(message.instructions or '')
            input_words += sum(_request_part_words(part) for part in message.parts)
        else:
            input_words += _response_words(message.parts)
    return RequestUsage(input_tokens=input_words, output_tokens=_response_words(response_parts))


def _request_part_words(part: SystemPromptPart | UserPromptPart | BaseToolReturnPart | RetryPromptPart) -> int:
    if isinstance(part, SystemPromptPart):
        return count_words(part.content)
    if isinstance(part, UserPromptPart):
        if isinstance(part.content, str):
            return count_words(part.content)
        # Multi-modal items count as one token each: the estimate only needs to be stable, not accurate.
        return sum(count_words(item) if isinstance(item, str) else 1 for item in part.content)
    if isinstance(part, RetryPromptPart):
        return count_words(part.model_response())
    return count_words(part.model_response_str())


def _response_words(parts: Iterable[ModelResponsePart]) -> int:
    words = 0
    for part in parts:
        if isinstance(part, TextPart | ThinkingPart):
            words += count_words(part.content)
        elif isinstance(part, BaseToolCallPart):
            words += 1 + count_words(part.args_as_json_str())
        elif isinstance(part, FilePart):
            words += 1
        else:
            words += count_words(pydantic_core.to_json(part.content, fallback=repr).decode())
    return words
