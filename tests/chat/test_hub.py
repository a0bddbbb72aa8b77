"""`TurnEventHub`: a conversation's running turn, replayed from its start, with retried attempts replaced."""

from __future__ import annotations

import pytest

from agent.run import AgentRunResult, AgentRunResultEvent
from doors.chat import StreamRestarted, TurnEvent, TurnEventHub

from ._events import describe, rest, streamed, take, tool_call


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def ingest_all(hub: TurnEventHub, records: list[TurnEvent]) -> list[bool]:
    return [hub.ingest(record) for record in records]


async def test_a_late_subscriber_replays_the_turn_from_its_start_then_follows_it_live() -> None:
    hub = TurnEventHub()
    early = hub.subscribe('conv')
    first, second = streamed('1.1.model', 'Hello', ' there', ','), streamed('1.2.model', 'Bye')
    ingest_all(hub, first[:2])
    late = hub.subscribe('conv')
    assert describe(await take(late, 2)) == ['text:Hello', 'text: there']
    ingest_all(hub, [first[2], *second])
    assert describe(await take(late, 2)) == ['text:,', 'text:Bye']
    assert describe(await take(early, 4)) == ['text:Hello', 'text: there', 'text:,', 'text:Bye']


async def test_a_new_attempt_replaces_the_earlier_attempts_events_and_restarts_readers() -> None:
    hub = TurnEventHub()
    reader = hub.subscribe('conv')
    ingest_all(hub, streamed('1.1.model', 'Lost', ' words'))
    assert describe(await take(reader, 2)) == ['text:Lost', 'text: words']
    ingest_all(hub, streamed('1.1.model', 'Kept', attempt=2))
    with pytest.raises(StreamRestarted):
        await take(reader, 1)
    resumed = hub.subscribe('conv')
    assert describe(await take(resumed, 1)) == ['text:Kept']
    # Attempt 2 goes on live; a straggler of attempt 1 is not shown.
    assert ingest_all(hub, streamed('1.1.model', ' text', attempt=2, first=1)) == [True]
    assert ingest_all(hub, streamed('1.1.model', ' more lost', first=2)) == [False]
    hub.end_turn('conv')
    assert describe(await rest(resumed)) == ['text: text']
    assert [record.attempt for record in hub.buffered('conv')] == [2, 2]


async def test_a_model_request_sent_again_as_a_new_activity_replaces_the_earlier_send() -> None:
    # A worker died mid-stream; the retry ran on a worker without the run's messages, so the workflow sent the
    # step's request again as `1.1.model#2`.
    hub = TurnEventHub()
    reader = hub.subscribe('conv')
    ingest_all(hub, streamed('1.1.model', 'Half'))
    assert describe(await take(reader, 1)) == ['text:Half']
    ingest_all(hub, streamed('1.1.model#2', 'Whole', ' answer'))
    with pytest.raises(StreamRestarted):
        await take(reader, 1)
    assert ingest_all(hub, streamed('1.1.model', ' late', attempt=2, first=1)) == [False]
    ingest_all(hub, tool_call('1.1.tool.a#2', 'twice', 'T'))
    hub.end_turn('conv')
    assert describe(await rest(hub.subscribe('conv'))) == ['text:Whole', 'text: answer', 'call:twice', 'result:T']


async def test_replay_follows_the_runs_order_and_readers_who_saw_otherwise_start_over() -> None:
    hub = TurnEventHub()
    ingest_all(hub, streamed('1.1.model', 'Checking.'))
    ingest_all(hub, tool_call('1.1.tool.b', 'second', 'B'))
    reader = hub.subscribe('conv')
    ingest_all(hub, streamed('1.2.model', 'Done.'))
    # Step 1's other tool call arrives after step 2's text (another worker was slower to send it).
    ingest_all(hub, tool_call('1.1.tool.a', 'first', 'A'))
    with pytest.raises(StreamRestarted):
        await take(reader, 5)
    hub.end_turn('conv')
    assert describe(await rest(hub.subscribe('conv'))) == [
        'text:Checking.',
        'call:second',
        'result:B',
        'call:first',
        'result:A',
        'text:Done.',
    ]


async def test_after_a_gap_in_an_attempt_its_later_events_are_dropped() -> None:
    hub = TurnEventHub()
    pieces = streamed('1.1.model', 'One', ' two', ' three', ' four')
    assert ingest_all(hub, [pieces[0], pieces[0], pieces[2], pieces[1], pieces[3]]) == [
        True,
        False,  # a duplicate
        False,  # a gap: ' two' was lost
        False,
        False,
    ]
    hub.end_turn('conv')
    assert describe(await rest(hub.subscribe('conv'))) == ['text:One']


async def test_a_full_turn_drops_its_further_events_so_readers_and_replays_see_the_same_prefix() -> None:
    hub = TurnEventHub(max_turn_events=3)
    reader = hub.subscribe('conv')
    accepted = ingest_all(hub, [*streamed('1.1.model', 'a', 'b'), *streamed('1.2.model', 'c', 'd', 'e')])
    assert accepted == [True, True, True, False, False]
    final = AgentRunResultEvent(AgentRunResult('abcde'))
    hub.end_turn('conv', final)
    assert describe(await rest(reader)) == ['text:a', 'text:b', 'text:c', 'AgentRunResultEvent']
    assert describe(await rest(hub.subscribe('conv'))) == ['text:a', 'text:b', 'text:c', 'AgentRunResultEvent']


async def test_ending_the_turn_ends_readers_with_the_final_event_and_keeps_the_turn_for_the_grace_period() -> None:
    clock = Clock()
    hub = TurnEventHub(end_grace=30, clock=clock)
    reader = hub.subscribe('conv')
    ingest_all(hub, streamed('1.1.model', 'Hi'))
    final = AgentRunResultEvent(AgentRunResult('Hi'))
    hub.end_turn('conv', final)
    assert await rest(reader) == [streamed('1.1.model', 'Hi')[0].event, final]
    # Late events of the ended turn are ignored.
    assert ingest_all(hub, streamed('1.1.model', ' late', first=1)) == [False]
    clock.now += 29
    assert describe(await rest(hub.subscribe('conv'))) == ['text:Hi', 'AgentRunResultEvent']
    clock.now += 1
    assert await rest(hub.subscribe('conv')) == []
    assert hub.buffered('conv') == []


async def test_beginning_a_turn_forgets_the_ended_one_and_readers_wait_for_the_new_ones_events() -> None:
    hub = TurnEventHub()
    ingest_all(hub, streamed('1.1.model', 'Old'))
    hub.end_turn('conv')
    hub.begin_turn('conv')
    reader = hub.subscribe('conv')
    assert ingest_all(hub, streamed('1.1.model', ' old again', first=1)) == [False]
    ingest_all(hub, streamed('2.1.model', 'New'))
    hub.end_turn('conv')
    assert describe(await rest(reader)) == ['text:New']


async def test_the_first_event_of_a_new_turn_replaces_an_unended_one_and_restarts_its_readers() -> None:
    hub = TurnEventHub()
    ingest_all(hub, streamed('1.1.model', 'Old'))
    reader = hub.subscribe('conv')
    assert describe(await take(reader, 1)) == ['text:Old']
    # The conversation continued as new: a new run, whose turns are numbered from 1 again.
    ingest_all(hub, streamed('1.1.model', 'New', run_id='run-2'))
    with pytest.raises(StreamRestarted):
        await take(reader, 1)
    assert describe(record.event for record in hub.buffered('conv')) == ['text:New']
    # Beginning a turn while one is running (its events came first) keeps it.
    hub.begin_turn('conv')
    assert describe(record.event for record in hub.buffered('conv')) == ['text:New']


async def test_idle_conversations_are_forgotten_and_the_least_recently_used_go_beyond_the_limit() -> None:
    clock = Clock()
    hub = TurnEventHub(idle_after=60, max_conversations=2, clock=clock)
    ingest_all(hub, streamed('1.1.model', 'a', workflow_id='a'))
    ingest_all(hub, streamed('1.1.model', 'b', workflow_id='b'))
    reader = hub.subscribe('a')
    ingest_all(hub, streamed('1.1.model', 'c', workflow_id='c'))
    # 'b' was the least recently used one that nobody reads.
    assert [len(hub.buffered(conversation)) for conversation in 'abc'] == [1, 0, 1]
    clock.now += 61
    ingest_all(hub, streamed('1.1.model', 'd', workflow_id='d'))
    # 'c' sat idle; 'a' has a reader.
    assert [len(hub.buffered(conversation)) for conversation in 'acd'] == [1, 0, 1]
    await reader.aclose()
    with pytest.raises(StopAsyncIteration):
        await take(reader, 1)
