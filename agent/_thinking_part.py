"""Splitting text that carries a model's thinking inline, between tags such as `<think>...</think>`."""

from __future__ import annotations

from ._parts import TextPart, ThinkingPart

__all__ = ('split_content_into_text_and_thinking',)


def split_content_into_text_and_thinking(content: str, thinking_tags: tuple[str, str]) -> list[ThinkingPart | TextPart]:
    """Text and thinking parts, in order, for `content` in which thinking sits between `thinking_tags`.

    Some models (or the servers in front of them) return their reasoning inside the text. A thinking block whose
    closing tag never comes is kept as text (without its opening tag): it is more likely cut-off output than
    reasoning. Empty stretches of text between blocks are left out.
    """
    start, end = thinking_tags
    parts: list[ThinkingPart | TextPart] = []
    rest = content
    while True:
        before, found, after = rest.partition(start)
        if before:
            parts.append(TextPart(content=before))
        if not found:
            return parts
        thinking, closed, rest = after.partition(end)
        if not closed:
            if thinking:
                parts.append(TextPart(content=thinking))
            return parts
        parts.append(ThinkingPart(content=thinking))
