from typing import Any

import pytest

import agent._parts_manager
from agent._tool_search import ToolSearchCallPart
from agent.exceptions import UnexpectedModelBehavior
from agent.messages import (
    BinaryContent,
    FilePart,
    NativeToolCallPart,
    PartDeltaEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
)
from agent.models import ModelRequestParameters, ModelResponsePartsManager
from agent.tools import ToolDefinition


def new_manager(*tools: ToolDefinition) -> ModelResponsePartsManager:
    return ModelResponsePartsManager(ModelRequestParameters(function_tools=list(tools)))


def test_the_private_module_holds_the_manager_the_models_use():
    assert agent._parts_manager.ModelResponsePartsManager is ModelResponsePartsManager


def test_text_without_vendor_id_appends_to_the_latest_text_part():
    manager = new_manager()

    first = list(manager.handle_text_delta(vendor_part_id=None, content='Hello'))
    second = list(manager.handle_text_delta(vendor_part_id=None, content=' world'))

    assert first == [PartStartEvent(0, TextPart('Hello'))]
    assert second == [PartDeltaEvent(0, TextPartDelta(' world'))]
    assert manager.get_parts() == [TextPart('Hello world')]


def test_a_text_fragment_is_applied_only_as_its_events_are_consumed():
    manager = new_manager()

    events = manager.handle_text_delta(vendor_part_id='t', content='late')
    assert manager.get_parts() == []

    assert next(events) == PartStartEvent(0, TextPart('late'))
    assert manager.get_parts() == [TextPart('late')]


def test_text_without_vendor_id_after_a_tool_call_starts_a_new_text_part():
    manager = new_manager()
    list(manager.handle_text_delta(vendor_part_id=None, content='before'))
    manager.handle_tool_call_part(vendor_part_id=None, tool_name='lookup', args='{}', tool_call_id='c1')

    events = list(manager.handle_text_delta(vendor_part_id=None, content='after'))

    assert events == [PartStartEvent(2, TextPart('after'))]
    assert [type(p).__name__ for p in manager.get_parts()] == ['TextPart', 'ToolCallPart', 'TextPart']


def test_empty_text_starts_a_part_unless_leading_whitespace_is_ignored():
    manager = new_manager()

    assert list(manager.handle_text_delta(vendor_part_id='a', content='', ignore_leading_whitespace=True)) == []
    assert list(manager.handle_text_delta(vendor_part_id='a', content='\n ', ignore_leading_whitespace=True)) == []
    assert manager.get_parts() == []

    assert list(manager.handle_text_delta(vendor_part_id='b', content='')) == [PartStartEvent(0, TextPart(''))]


def test_text_between_thinking_tags_becomes_a_thinking_part_and_text_after_them_a_new_text_part():
    manager = new_manager()
    tags = ('<think>', '</think>')
    fragments = ['Sure. ', '<think>', 'is it ', 'safe?', '</think>', 'Yes.']

    events = [e for f in fragments for e in manager.handle_text_delta(vendor_part_id=0, content=f, thinking_tags=tags)]

    assert events == [
        PartStartEvent(0, TextPart('Sure. ')),
        PartStartEvent(1, ThinkingPart('')),
        PartDeltaEvent(1, ThinkingPartDelta('is it ')),
        PartDeltaEvent(1, ThinkingPartDelta('safe?')),
        PartStartEvent(2, TextPart('Yes.')),
    ]
    assert manager.get_parts() == [TextPart('Sure. '), ThinkingPart('is it safe?'), TextPart('Yes.')]


def test_a_vendor_id_of_another_kind_of_part_is_a_model_error():
    manager = new_manager()
    list(manager.handle_thinking_delta(vendor_part_id=0, content='hmm'))
    manager.handle_tool_call_delta(vendor_part_id=1, tool_name='lookup')

    with pytest.raises(UnexpectedModelBehavior, match=r'Cannot apply a text delta to existing_part=ThinkingPart\('):
        list(manager.handle_text_delta(vendor_part_id=0, content='answer'))
    with pytest.raises(UnexpectedModelBehavior, match=r'Cannot apply a thinking delta to existing_part=ToolCallPart'):
        list(manager.handle_thinking_delta(vendor_part_id=1, content='hmm'))
    with pytest.raises(UnexpectedModelBehavior, match=r'Cannot apply a tool call delta to existing_part=Thinking'):
        manager.handle_tool_call_delta(vendor_part_id=0, args='{}')


def test_tool_call_delta_without_a_name_is_held_until_the_name_arrives():
    manager = new_manager()

    held = manager.handle_tool_call_delta(vendor_part_id=7, args='{"city": ', tool_call_id='call_1')
    assert held is None
    assert manager.get_parts() == []
    assert manager.get_part_at(0) is None
    assert manager.get_part_by_vendor_id(7) == ToolCallPartDelta(args_delta='{"city": ', tool_call_id='call_1')

    started = manager.handle_tool_call_delta(vendor_part_id=7, tool_name='weather')
    assert started == PartStartEvent(0, ToolCallPart('weather', '{"city": ', 'call_1'))

    more = manager.handle_tool_call_delta(vendor_part_id=7, args='"Paris"}')
    # The delta names the call it belongs to even though the fragment did not.
    assert more == PartDeltaEvent(0, ToolCallPartDelta(None, '"Paris"}', 'call_1'))
    assert manager.get_parts() == [ToolCallPart('weather', '{"city": "Paris"}', 'call_1')]


def test_named_tool_call_delta_without_vendor_id_always_starts_another_call():
    manager = new_manager()
    manager.handle_tool_call_delta(vendor_part_id=None, tool_name='a', args='{"x":', tool_call_id='1')
    manager.handle_tool_call_delta(vendor_part_id=None, args='1}')

    event = manager.handle_tool_call_delta(vendor_part_id=None, tool_name='a', args='{}', tool_call_id='2')

    assert event == PartStartEvent(1, ToolCallPart('a', '{}', '2'))
    assert manager.get_parts() == [ToolCallPart('a', '{"x":1}', '1'), ToolCallPart('a', '{}', '2')]


def test_json_and_dict_argument_fragments_do_not_mix():
    manager = new_manager()
    manager.handle_tool_call_delta(vendor_part_id='s', tool_name='t', args='{"a":')
    manager.handle_tool_call_delta(vendor_part_id='d', args={'a': 1})

    with pytest.raises(UnexpectedModelBehavior, match='Cannot apply dict deltas to non-dict tool arguments'):
        manager.handle_tool_call_delta(vendor_part_id='s', args={'b': 2})
    with pytest.raises(UnexpectedModelBehavior, match='Cannot apply JSON deltas to non-JSON tool arguments'):
        manager.handle_tool_call_delta(vendor_part_id='d', args='{"b": 2}')


def test_deltas_name_the_provider_only_when_it_changes():
    manager = new_manager()
    list(manager.handle_thinking_delta(vendor_part_id='r', content='a', provider_name='anthropic'))

    same = list(manager.handle_thinking_delta(vendor_part_id='r', content='b', provider_name='anthropic'))
    other = list(manager.handle_thinking_delta(vendor_part_id='r', content='c', provider_name='bedrock'))

    assert same == [PartDeltaEvent(0, ThinkingPartDelta('b'))]
    assert other == [PartDeltaEvent(0, ThinkingPartDelta('c', provider_name='bedrock'))]
    assert manager.get_parts() == [ThinkingPart('abc', provider_name='bedrock')]


def test_thinking_deltas_accumulate_content_signature_and_computed_details():
    manager = new_manager()

    def count(details: dict[str, Any] | None) -> dict[str, Any]:
        return {'chunks': (details or {}).get('chunks', 0) + 1}

    list(manager.handle_thinking_delta(vendor_part_id='r', content='Let me ', provider_details=count))
    list(manager.handle_thinking_delta(vendor_part_id='r', content='think.', provider_details=count))
    list(manager.handle_thinking_delta(vendor_part_id='r', signature='sig'))

    assert manager.get_parts() == [ThinkingPart('Let me think.', signature='sig', provider_details={'chunks': 2})]
    assert list(manager.handle_thinking_delta(vendor_part_id='r')) == []
    with pytest.raises(UnexpectedModelBehavior, match='Cannot create a ThinkingPart with no content'):
        list(manager.handle_thinking_delta(vendor_part_id='new'))


def test_whole_part_replaces_the_earlier_part_of_its_vendor_id_only_when_of_the_same_type():
    manager = new_manager()
    manager.handle_tool_call_part(vendor_part_id='x', tool_name='draft', args={'a': 1}, tool_call_id='c1')
    image = FilePart(BinaryContent(b'png', media_type='image/png'))
    search = NativeToolCallPart('web_search', '{"q": ', 'n1')

    beside = manager.handle_part(vendor_part_id='x', part=image)
    replaced = manager.handle_part(vendor_part_id='x', part=search)
    appended = manager.handle_part(vendor_part_id=None, part=image)
    more = manager.handle_tool_call_delta(vendor_part_id='x', args='"news"}')

    assert beside == PartStartEvent(1, image)
    assert replaced == PartStartEvent(2, search)
    assert appended == PartStartEvent(3, image)
    assert more == PartDeltaEvent(2, ToolCallPartDelta(args_delta='"news"}', tool_call_id='n1'))
    assert manager.get_parts() == [
        ToolCallPart('draft', {'a': 1}, 'c1'),
        image,
        NativeToolCallPart('web_search', '{"q": "news"}', 'n1'),
        image,
    ]


def test_whole_tool_call_gets_an_id_and_overwrites_the_call_of_its_vendor_id():
    manager = new_manager()
    manager.handle_tool_call_delta(vendor_part_id='c', tool_name='draft', args='{"a"')

    event = manager.handle_tool_call_part(vendor_part_id='c', tool_name='final', args='{}')

    assert isinstance(event, PartStartEvent)
    assert event.index == 0
    assert isinstance(event.part, ToolCallPart)
    assert event.part.tool_call_id
    assert manager.get_parts() == [event.part]


def test_calls_of_a_tool_with_a_kind_start_as_that_kinds_typed_part():
    manager = new_manager(ToolDefinition(name='search_tools', tool_kind='tool-search'))

    started = manager.handle_tool_call_delta(vendor_part_id=0, tool_name='search_tools', tool_call_id='s1')
    manager.handle_tool_call_delta(vendor_part_id=0, args='{"queries": ["mail"]}')
    other = manager.handle_tool_call_part(vendor_part_id=1, tool_name='send_mail', args='{}', tool_call_id='m1')

    assert isinstance(started, PartStartEvent)
    assert isinstance(started.part, ToolSearchCallPart)
    parts = manager.get_parts()
    assert isinstance(parts[0], ToolSearchCallPart)
    assert parts[0].typed_args == {'queries': ['mail']}
    assert isinstance(other, PartStartEvent)
    assert type(other.part) is ToolCallPart
