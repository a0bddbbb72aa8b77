"""`ShownParts`: what a turn's live stream showed, and what its result must still add when the stream fell behind."""

from __future__ import annotations

from collections.abc import Sequence

from agent._events import PartDeltaEvent, PartEndEvent, PartStartEvent
from agent._part_deltas import TextPartDelta
from agent._parts import ModelResponse, TextPart
from agent._tool_parts import ToolCallPart
from agent.ui.web._replay import ShownParts

FINAL = ModelResponse(parts=[TextPart('You said: hi from a worker process')])


def shown_text(events: Sequence[object]) -> str:
    """The text a reader of `events` puts together (a start's content, then each delta's)."""
    text = ''
    for event in events:
        if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
            text += event.part.content
        elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
            text += event.delta.content_delta
    return text


def test_a_text_whose_last_deltas_never_came_is_finished_from_the_result():
    shown = ShownParts()
    live = [PartStartEvent(index=0, part=TextPart('You')), PartDeltaEvent(index=0, delta=TextPartDelta(' said'))]
    for event in live:
        shown.see(event)

    rest = shown.unshown_events([FINAL])

    assert shown_text([*live, *rest]) == 'You said: hi from a worker process'
    assert rest[-1] == PartEndEvent(index=0, part=FINAL.parts[0])


def test_a_text_started_empty_is_finished_whole():
    shown = ShownParts()
    shown.see(PartStartEvent(index=0, part=TextPart('')))

    assert shown_text(shown.unshown_events([FINAL])) == 'You said: hi from a worker process'


def test_a_text_shown_to_its_end_adds_nothing():
    shown = ShownParts()
    for event in [
        PartStartEvent(index=0, part=TextPart('You said: hi')),
        PartDeltaEvent(index=0, delta=TextPartDelta(' from a worker process')),
        PartEndEvent(index=0, part=FINAL.parts[0]),
    ]:
        shown.see(event)

    assert shown.unshown_events([FINAL]) == []


def test_the_parts_a_response_never_started_are_added_with_their_calls_results():
    call = ToolCallPart('lookup', {'q': 'x'}, 'call-1')
    response = ModelResponse(parts=[TextPart('Looking it up.'), call])
    shown = ShownParts()
    for event in [PartStartEvent(index=0, part=response.parts[0]), PartEndEvent(index=0, part=response.parts[0])]:
        shown.see(event)

    rest = shown.unshown_events([response])

    assert rest == [PartStartEvent(index=1, part=call), PartEndEvent(index=1, part=call)]
