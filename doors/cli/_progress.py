"""A run's progress as lines for a person: each model request, tool call, tool result and text, shown once.

`agents run --watch` and `agents watch` poll the run's `messages` query and hand every reply to one `Progress`,
which remembers what it has printed, by message index and by the parts of each message that a person reads, so
polling again never prints a line twice. A message can grow between polls (the run's first request stands in for
the user prompt until the agent sends it), which is why parts, not messages, are counted.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent._parts import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ThinkingPart,
    UserPromptPart,
)
from agent._tool_parts import BaseToolCallPart, BaseToolReturnPart

from ._output import plural, shorten

__all__ = ('LINE_WIDTH', 'Progress')

LINE_WIDTH = 100
"""How many characters of a tool call, a tool result or a user prompt a line shows."""


class Progress:
    """Turns the messages of a run, polled again and again, into lines, each line given once."""

    def __init__(self) -> None:
        self._shown: dict[int, int] = {}
        """Message index -> how many of its visible parts have been given."""
        self.requests = 0
        """Model responses shown so far."""

    @property
    def next_index(self) -> int:
        """The index of the first message not shown at all (the one before it may still grow)."""
        return max(self._shown, default=-1) + 1

    def lines(self, messages: Sequence[ModelMessage], offset: int = 0) -> list[str]:
        """The lines of what is new in `messages`, the run's messages from index `offset` on."""
        lines: list[str] = []
        for index, message in enumerate(messages, start=offset):
            parts = _visible(message)
            done = self._shown.get(index, 0)
            if done == 0 and isinstance(message, ModelResponse):
                self.requests += 1
                lines.append(_response_header(self.requests, message))
            for part in parts[done:]:
                lines.extend(_part_lines(part))
            self._shown[index] = max(done, len(parts))
        return lines


def _visible(message: ModelMessage) -> list[object]:
    """The parts of `message` a person reads (system prompts and instructions are left out)."""
    if isinstance(message, ModelRequest):
        return [p for p in message.parts if isinstance(p, UserPromptPart | BaseToolReturnPart | RetryPromptPart)]
    return [p for p in message.parts if isinstance(p, TextPart | ThinkingPart | BaseToolCallPart)]


def _response_header(number: int, response: ModelResponse) -> str:
    usage = response.usage
    model = f' ({response.model_name})' if response.model_name else ''
    tokens = f'{plural(usage.input_tokens, "input token")}, {plural(usage.output_tokens, "output token")}'
    return f'model request {number}{model}: {tokens}'


def _user_text(part: UserPromptPart) -> str:
    if isinstance(part.content, str):
        return part.content
    return ' '.join(item if isinstance(item, str) else f'[{type(item).__name__}]' for item in part.content)


def _part_lines(part: object) -> list[str]:
    match part:
        case UserPromptPart():
            return [f'user: {shorten(_user_text(part), LINE_WIDTH)}']
        case TextPart():
            text = part.content.strip()
            return [f'  text: {line}' if i == 0 else f'        {line}' for i, line in enumerate(text.splitlines())]
        case ThinkingPart():
            return [f'  thinking: {shorten(part.content, LINE_WIDTH)}']
        case BaseToolCallPart():
            call = shorten(f'{part.tool_name}({part.args_as_json_str()})', LINE_WIDTH)
            return [f'  tool call {call}  [{part.tool_call_id}]']
        case BaseToolReturnPart():
            result = shorten(part.model_response_str(), LINE_WIDTH)
            verdict = {'success': 'returned', 'failed': 'failed', 'denied': 'denied'}[part.outcome]
            return [f'  {part.tool_name} {verdict}: {result}  [{part.tool_call_id}]']
        case RetryPromptPart():
            about = f' {part.tool_name}' if part.tool_name else ''
            return [f'  retry{about}: {shorten(part.model_response(), LINE_WIDTH)}']
        case _:  # pragma: no cover - `_visible` gives only the kinds above
            return []
