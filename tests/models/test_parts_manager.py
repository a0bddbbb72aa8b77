from agent.messages import (
    BinaryContent,
    FilePart,
    PartDeltaEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ToolCallPart,
    ToolCallPartDelta,
)
from agent.models import ModelResponsePartsManager


def test_text_without_vendor_id_appends_to_the_latest_text_part():
    manager = ModelResponsePartsManager()

    first = manager.handle_text_delta(vendor_part_id=None, content='Hello')
    second = manager.handle_text_delta(vendor_part_id=None, content=' world')

    assert first == PartStartEvent(0, TextPart('Hello'))
    assert second == PartDeltaEvent(0, TextPartDelta(' world'))
    assert manager.get_parts() == [TextPart('Hello world')]


def test_text_without_vendor_id_after_a_tool_call_starts_a_new_text_part():
    manager = ModelResponsePartsManager()
    manager.handle_text_delta(vendor_part_id=None, content='before')
    manager.handle_tool_call_part(vendor_part_id=None, tool_name='lookup', args='{}', tool_call_id='c1')

    event = manager.handle_text_delta(vendor_part_id=None, content='after')

    assert event == PartStartEvent(2, TextPart('after'))
    assert [type(p).__name__ for p in manager.get_parts()] == ['TextPart', 'ToolCallPart', 'TextPart']


def test_empty_text_produces_no_event_and_no_part():
    manager = ModelResponsePartsManager()

    assert manager.handle_text_delta(vendor_part_id='t', content='') is None
    assert manager.get_parts() == []


def test_text_for_distinct_vendor_ids_goes_to_distinct_parts():
    manager = ModelResponsePartsManager()
    manager.handle_text_delta(vendor_part_id='a', content='one')
    manager.handle_text_delta(vendor_part_id='b', content='two')

    event = manager.handle_text_delta(vendor_part_id='a', content=' more')

    assert event == PartDeltaEvent(0, TextPartDelta(' more'))
    assert manager.get_parts() == [TextPart('one more'), TextPart('two')]


def test_tool_call_delta_without_a_name_is_buffered_until_the_name_arrives():
    manager = ModelResponsePartsManager()

    buffered = manager.handle_tool_call_delta(vendor_part_id=7, args='{"city": ', tool_call_id='call_1')
    assert buffered is None
    assert manager.get_parts() == []
    assert manager.get_part_at(0) is None

    started = manager.handle_tool_call_delta(vendor_part_id=7, tool_name='weather')
    assert started == PartStartEvent(0, ToolCallPart('weather', '{"city": ', 'call_1'))

    more = manager.handle_tool_call_delta(vendor_part_id=7, args='"Paris"}')
    assert more == PartDeltaEvent(0, ToolCallPartDelta(None, '"Paris"}', None))
    assert manager.get_parts() == [ToolCallPart('weather', '{"city": "Paris"}', 'call_1')]


def test_tool_call_delta_with_a_name_starts_a_part_immediately():
    manager = ModelResponsePartsManager()

    event = manager.handle_tool_call_delta(vendor_part_id=0, tool_name='search', args='{"q"', tool_call_id='c')

    assert event == PartStartEvent(0, ToolCallPart('search', '{"q"', 'c'))


def test_named_tool_call_delta_without_vendor_id_after_a_complete_call_starts_another_call():
    manager = ModelResponsePartsManager()
    manager.handle_tool_call_delta(vendor_part_id=None, tool_name='a', args='{}', tool_call_id='1')

    event = manager.handle_tool_call_delta(vendor_part_id=None, tool_name='b', args='{}', tool_call_id='2')

    assert event == PartStartEvent(1, ToolCallPart('b', '{}', '2'))
    assert [p.tool_name for p in manager.get_parts() if isinstance(p, ToolCallPart)] == ['a', 'b']


def test_thinking_deltas_accumulate_content_and_signature():
    manager = ModelResponsePartsManager()

    manager.handle_thinking_delta(vendor_part_id='r', content='Let me ', provider_name='p')
    manager.handle_thinking_delta(vendor_part_id='r', content='think.')
    manager.handle_thinking_delta(vendor_part_id='r', signature='sig')

    assert manager.get_parts() == [ThinkingPart('Let me think.', signature='sig', provider_name='p')]
    assert manager.handle_thinking_delta(vendor_part_id='r') is None


def test_vendor_id_reused_for_another_kind_of_part_starts_a_new_part():
    manager = ModelResponsePartsManager()
    manager.handle_thinking_delta(vendor_part_id=0, content='hmm')

    event = manager.handle_text_delta(vendor_part_id=0, content='answer')

    assert event == PartStartEvent(1, TextPart('answer'))
    assert manager.get_parts() == [ThinkingPart('hmm'), TextPart('answer')]


def test_whole_part_with_a_known_vendor_id_replaces_the_earlier_part():
    manager = ModelResponsePartsManager()
    manager.handle_tool_call_part(vendor_part_id='x', tool_name='draft', args={'a': 1}, tool_call_id='c1')
    image = FilePart(BinaryContent(b'png', media_type='image/png'))

    replaced = manager.handle_part(vendor_part_id='x', part=image)
    appended = manager.handle_part(vendor_part_id=None, part=image)

    assert replaced == PartStartEvent(0, image)
    assert appended == PartStartEvent(1, image)
    assert manager.get_parts() == [image, image]
