"""Thinking that a model returns inline in its text, between tags."""

from __future__ import annotations

import pytest

from agent import TextPart, ThinkingPart
from agent._thinking_part import split_content_into_text_and_thinking

TAGS = ('<think>', '</think>')


@pytest.mark.parametrize(
    ('content', 'parts'),
    [
        ('just an answer', [TextPart('just an answer')]),
        ('<think>plan</think>answer', [ThinkingPart('plan'), TextPart('answer')]),
        (
            'a<think>one</think>b<think>two</think>',
            [TextPart('a'), ThinkingPart('one'), TextPart('b'), ThinkingPart('two')],
        ),
        ('answer<think>cut off', [TextPart('answer'), TextPart('cut off')]),
        ('<other>x</other>', [TextPart('<other>x</other>')]),
        ('', []),
    ],
)
def test_thinking_between_tags_becomes_thinking_parts_in_order(content: str, parts: list[object]) -> None:
    assert split_content_into_text_and_thinking(content, TAGS) == parts


def test_custom_tags_are_the_only_ones_recognised() -> None:
    assert split_content_into_text_and_thinking('<r>why</r>so<think>no</think>', ('<r>', '</r>')) == [
        ThinkingPart('why'),
        TextPart('so<think>no</think>'),
    ]
