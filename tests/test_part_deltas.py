"""Deltas applied to earlier deltas and to native tool calls, and provider details computed from a part's."""

from typing import Any

import pytest

from agent.messages import NativeToolCallPart, ThinkingPart, ThinkingPartDelta, ToolCallPart, ToolCallPartDelta


def add(key: str, value: Any):
    def update(details: dict[str, Any] | None) -> dict[str, Any]:
        return {**(details or {}), key: value}

    return update


def test_a_thinking_delta_computes_the_parts_details_from_the_ones_it_has():
    part = ThinkingPart('a', provider_details={'seen': 1})

    updated = ThinkingPartDelta('b', provider_details=add('more', 2)).apply(part)

    assert updated == ThinkingPart('ab', provider_details={'seen': 1, 'more': 2})


def test_thinking_deltas_combine_into_one_with_the_effect_of_both():
    first = ThinkingPartDelta('Hmm', provider_details=add('first', 1))
    second = ThinkingPartDelta(', yes', signature_delta='sig', provider_details={'second': 2})
    third = ThinkingPartDelta('.', provider_name='bedrock', provider_details=add('third', 3))

    combined = third.apply(second.apply(first))

    assert isinstance(combined, ThinkingPartDelta)
    assert (combined.content_delta, combined.signature_delta, combined.provider_name) == ('Hmm, yes.', 'sig', 'bedrock')
    assert combined.apply(ThinkingPart('')).provider_details == {'first': 1, 'second': 2, 'third': 3}
    dicts = ThinkingPartDelta('b', provider_details={'x': 2, 'y': 3}).apply(
        ThinkingPartDelta('a', provider_details={'x': 1})
    )
    assert dicts == ThinkingPartDelta('ab', provider_details={'x': 2, 'y': 3})


def test_an_empty_thinking_delta_cannot_be_combined():
    with pytest.raises(ValueError, match='Cannot apply ThinkingPartDelta with no content or signature'):
        ThinkingPartDelta().apply(ThinkingPartDelta('a'))


def test_a_tool_call_delta_continues_a_native_tool_call():
    call = NativeToolCallPart('web_search', '{"query": ', 'ws_1', provider_name='anthropic')

    updated = ToolCallPartDelta(args_delta='"news"}').apply(call)

    assert updated == NativeToolCallPart('web_search', '{"query": "news"}', 'ws_1', provider_name='anthropic')


def test_a_tool_call_delta_with_an_empty_name_still_makes_a_call():
    assert ToolCallPartDelta('', '{}', 'c').as_part() == ToolCallPart('', '{}', 'c')
