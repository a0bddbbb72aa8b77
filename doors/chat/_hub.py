"""`TurnEventHub`: on the chat server, each conversation's running turn as events, and the readers following it.

The worker's activities publish their events (see `doors.chat._relay`); the hub keeps, per conversation
workflow, the current turn's events from the turn's start, grouped by activity, and hands them to readers: a
`subscribe` replays the turn so far and then follows it live. Events are best effort and may arrive late, twice
or from a retried attempt, so the hub keeps one rule: every reader sees a consistent prefix of the turn, the
same one a reader that subscribes later replays. In detail:

- A new attempt of an activity replaces the earlier attempt's events, so a retried model request never shows
  duplicated or mixed text. A step's model request sent again as a new activity (`<turn>.<step>.model#2`: the
  workflow re-sends a request whose retry, on a worker that did not have the run's messages, could not make it)
  counts as a later attempt of the step's model request: a step has one model response. Readers that already saw
  the earlier attempt's events cannot take them back, so they are told to start over: their iterator raises
  `StreamRestarted` (the HTTP response ends without finishing, the client resumes, and the resume replays the
  turn with only the latest attempts).
- Replay order is the run's order: the steps in turn, in each step the model request and then its tool calls
  (in the order they first arrived). Live events go out as they arrive; one that arrives after a later step's
  events (possible when activities run on several workers) restarts the readers too, so that they read the turn
  in replay order.
- Within an attempt events must arrive in sequence. A duplicate is ignored; after a gap (the worker dropped
  events, or this server started in the middle of the attempt) the attempt's later events are dropped, as
  deltas without their start would render wrong. The turn's result, which the backend publishes, is complete
  whatever was dropped, and the history is the source of truth.
- A turn begins with `begin_turn` (the backend calls it before it starts the turn, so the previous turn's
  events are not replayed as the new turn's) or with the first event of a new turn, and ends with `end_turn`:
  readers get the backend's final event and stop; the buffer stays for `end_grace` seconds for late resumes,
  and late events of the ended turn are ignored.

Memory is bounded: a turn keeps at most `max_turn_events` events and `max_turn_bytes` bytes (beyond that the
turn's further events are dropped for everyone, keeping readers and replays the same prefix), and a
conversation nobody reads and nothing was published to for `idle_after` seconds is forgotten, as are the least
recently used ones beyond `max_conversations`. Everything is called from the chat server's event loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from agent.ui._event_stream import NativeEvent
from agent.ui.web import StreamInterrupted

from ._turn_events import ActivityPlace, TurnEvent

__all__ = ('StreamRestarted', 'TurnEventHub', 'TurnSubscription')

logger = logging.getLogger('doors.chat')

_END = object()
_RETIRED_TURNS = 8  # turns of a conversation remembered as over, so their late events cannot start them again
_SWEEP_INTERVAL = 1.0


class StreamRestarted(StreamInterrupted):
    """The turn's events changed under a reader (an activity was retried, or events came out of order).

    What the reader showed is no longer a prefix of the turn: it should drop it and subscribe again, which
    replays the turn from its start. The chat app ends the page's response without finishing it, so the page
    does exactly that (see `agent.ui.web.StreamInterrupted`).
    """

    def __init__(self, workflow_id: str) -> None:
        super().__init__(f'The turn of {workflow_id!r} changed; subscribe again to replay it from its start.')
        self.workflow_id = workflow_id
        """The conversation's workflow."""


class _Reader:
    """One subscription's queue: what it has yet to read, and whether it must start over."""

    def __init__(self) -> None:
        self.pending: deque[Any] = deque()
        self.restarted = False
        self.wake = asyncio.Event()

    def push(self, item: Any) -> None:
        self.pending.append(item)
        self.wake.set()

    def restart(self) -> None:
        self.pending.clear()  # what it has not read yet belongs to the old picture of the turn
        self.restarted = True
        self.wake.set()


@dataclass(eq=False)
class _Activity:
    """The events of one activity's latest attempt."""

    place: ActivityPlace
    arrival: int
    attempt: tuple[int, int]
    """(which send of the step's model request, from 1; the activity's attempt): later ones replace earlier ones."""
    records: list[TurnEvent] = field(default_factory=list[TurnEvent])
    sizes: int = 0
    broken: bool = False
    """A gap in the sequence: the attempt's later events are dropped."""

    @property
    def order(self) -> tuple[int, int, int]:
        return (self.place.step, self.place.rank, self.arrival)


@dataclass(eq=False)
class _Conversation:
    """A conversation workflow's current (or just ended) turn and its readers."""

    touched: float
    turn: tuple[str, int] | None = None
    """(run id, turn number) of the turn the buffer holds; `None` before its first event."""
    retired: deque[tuple[str, int]] = field(default_factory=lambda: deque(maxlen=_RETIRED_TURNS))
    activities: dict[str, _Activity] = field(default_factory=dict[str, _Activity])
    events: int = 0
    bytes: int = 0
    full: bool = False
    ended_at: float | None = None
    final: NativeEvent | None = None
    cleared: bool = False
    readers: set[_Reader] = field(default_factory=set[_Reader])

    def replay(self) -> list[Any]:
        ordered = sorted(self.activities.values(), key=lambda a: a.order)
        events: list[Any] = [record.event for activity in ordered for record in activity.records]
        return [*events, self.final] if self.final is not None else events

    def reset(self) -> None:
        """Forget the turn (remembering it as over), ready for the next one."""
        if self.turn is not None:
            self.retired.append(self.turn)
        self.turn, self.activities, self.events, self.bytes, self.full = None, {}, 0, 0, False
        self.ended_at, self.final, self.cleared = None, None, False

    def restart_readers(self) -> None:
        for reader in self.readers:
            reader.restart()
        self.readers.clear()


class TurnSubscription(AsyncIterator[NativeEvent]):
    """A reader of one conversation's turn: the events so far, then live ones, until the turn ends.

    Iterating raises `StreamRestarted` when the reader must start over; `aclose` detaches the reader (the turn
    goes on).
    """

    def __init__(self, workflow_id: str, conversation: _Conversation, reader: _Reader) -> None:
        self._workflow_id = workflow_id
        self._conversation = conversation
        self._reader = reader

    async def __anext__(self) -> NativeEvent:
        reader = self._reader
        while True:
            if reader.restarted:
                self._detach()
                raise StreamRestarted(self._workflow_id)
            if reader.pending:
                item = reader.pending.popleft()
                if item is _END:
                    self._detach()
                    raise StopAsyncIteration
                return item
            reader.wake.clear()
            await reader.wake.wait()

    async def aclose(self) -> None:
        """Stop reading; the turn goes on."""
        self._detach()

    def _detach(self) -> None:
        self._conversation.readers.discard(self._reader)
        self._reader.pending.clear()
        self._reader.pending.append(_END)


class TurnEventHub:
    """Each conversation's running turn as events, replayed from the turn's start to every reader.

    See the module docstring for the rules. `ingest` takes the workers' events (in-process from
    `InMemoryPublisher`, or through `turn_events_route` from `HttpPublisher`); the chat backend calls
    `begin_turn`, `end_turn` and `subscribe`.
    """

    def __init__(
        self,
        *,
        max_turn_events: int = 20_000,
        max_turn_bytes: int = 16_000_000,
        end_grace: float = 30.0,
        idle_after: float = 900.0,
        max_conversations: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Create a hub.

        Args:
            max_turn_events: Most events one turn keeps; the turn's later events are dropped.
            max_turn_bytes: Most bytes (as they arrived on the wire) one turn keeps; likewise.
            end_grace: Seconds an ended turn's events stay for late resumes.
            idle_after: Seconds after which a conversation nobody reads and nothing was published to is forgotten.
            max_conversations: Most conversations kept; the least recently used unread ones go first.
            clock: Monotonic seconds (for tests).
        """
        self._max_events = max_turn_events
        self._max_bytes = max_turn_bytes
        self._end_grace = end_grace
        self._idle_after = idle_after
        self._max_conversations = max_conversations
        self._clock = clock
        self._conversations: OrderedDict[str, _Conversation] = OrderedDict()
        self._swept_at = clock()

    def begin_turn(self, workflow_id: str) -> None:
        """A turn of this conversation is starting: forget its ended turn, so it is not replayed as this one.

        A turn whose events already arrived and that has not ended is kept (its events may come first).
        """
        conversation = self._touch(workflow_id)
        if conversation.ended_at is not None:
            conversation.reset()

    def end_turn(self, workflow_id: str, final: NativeEvent | None = None) -> None:
        """The turn completed or stopped (e.g. for approvals): readers get `final` (if given) and stop.

        Its events stay for `end_grace` seconds, so a resume that comes just after replays the whole turn.
        """
        conversation = self._touch(workflow_id)
        if conversation.ended_at is not None:
            return
        conversation.ended_at, conversation.final = self._clock(), final
        for reader in conversation.readers:
            if final is not None:
                reader.push(final)
            reader.push(_END)
        conversation.readers.clear()

    def subscribe(self, workflow_id: str) -> TurnSubscription:
        """The conversation's turn from its start, then live until `end_turn`.

        For a conversation the hub knows nothing of (e.g. this server just started), the reader waits for events.
        After an ended turn's grace period it gets nothing.
        """
        conversation = self._touch(workflow_id)
        reader = _Reader()
        if conversation.ended_at is None:
            reader.pending.extend(conversation.replay())
            conversation.readers.add(reader)
        else:
            if not conversation.cleared:
                reader.pending.extend(conversation.replay())
            reader.pending.append(_END)
        return TurnSubscription(workflow_id, conversation, reader)

    def holds_ended_turn(self, workflow_id: str) -> bool:
        """Whether the conversation's turn has ended and is still kept for late resumes (within `end_grace`)."""
        conversation = self._conversations.get(workflow_id)
        if conversation is None or conversation.ended_at is None:
            return False
        self._expire(conversation, self._clock())
        return not conversation.cleared

    def buffered(self, workflow_id: str) -> list[TurnEvent]:
        """The events the hub holds for the conversation's turn, in replay order (to inspect; readers use
        `subscribe`)."""
        conversation = self._conversations.get(workflow_id)
        if conversation is None or conversation.cleared:
            return []
        ordered = sorted(conversation.activities.values(), key=lambda a: a.order)
        return [record for activity in ordered for record in activity.records]

    def ingest(self, record: TurnEvent, size: int = 0) -> bool:
        """Take one event from a worker; `False` if it was dropped (see the module docstring for why).

        `size` is its size on the wire, counted against `max_turn_bytes`.
        """
        place = ActivityPlace.parse(record.activity_id)
        if place is None:
            return False  # not an agent run's model request or tool call
        conversation = self._touch(record.workflow_id)
        key = (record.run_id, place.turn)
        restart = False
        if key != conversation.turn:
            if key in conversation.retired:
                return False
            if conversation.turn is not None or conversation.ended_at is not None:
                # A new turn: the previous one is over, whether or not its end was marked.
                restart = bool(conversation.activities)
                conversation.reset()
            conversation.turn = key
        elif conversation.ended_at is not None:
            return False  # late event of an ended turn: its readers have the final result
        if conversation.full:
            return False
        slot, attempt = _slot(record, place)
        activity = conversation.activities.get(slot)
        if activity is not None and attempt < activity.attempt:
            return False  # an earlier attempt's straggler
        if activity is None or attempt > activity.attempt:
            if activity is not None:
                restart = restart or bool(activity.records)
                conversation.events -= len(activity.records)
                conversation.bytes -= activity.sizes
            arrival = activity.arrival if activity is not None else len(conversation.activities)
            new = _Activity(place, arrival, attempt)
            conversation.activities[slot] = activity = new
            # A step that sorts before events already out means readers saw the turn out of replay order.
            restart = restart or any(
                (other.place.step, other.place.rank) > (place.step, place.rank) and other.records
                for other in conversation.activities.values()
            )
        accepted = self._append(record.workflow_id, conversation, activity, record, size)
        if restart:
            conversation.restart_readers()
        elif accepted:
            for reader in conversation.readers:
                reader.push(record.event)
        return accepted

    def _append(
        self, workflow_id: str, conversation: _Conversation, activity: _Activity, record: TurnEvent, size: int
    ) -> bool:
        if activity.broken:
            return False
        expected = len(activity.records)
        if record.seq != expected:
            if record.seq > expected:
                activity.broken = True
                logger.warning(
                    'Turn events of %s activity %s attempt %d: event %d came after %d; the attempt is not shown '
                    'further (events were lost on the way).',
                    workflow_id,
                    record.activity_id,
                    record.attempt,
                    record.seq,
                    expected,
                )
            return False
        if conversation.events + 1 > self._max_events or conversation.bytes + size > self._max_bytes:
            conversation.full = True
            logger.warning(
                'Turn of %s exceeds %d events or %d bytes: its further events are not shown live.',
                workflow_id,
                self._max_events,
                self._max_bytes,
            )
            return False
        activity.records.append(record)
        activity.sizes += size
        conversation.events += 1
        conversation.bytes += size
        return True

    def _touch(self, workflow_id: str) -> _Conversation:
        """The conversation (created if new), marked as just used; ended turns past their grace are cleared."""
        now = self._clock()
        if now - self._swept_at >= _SWEEP_INTERVAL:
            self._sweep(now)
        conversation = self._conversations.pop(workflow_id, None)
        if conversation is None:
            conversation = _Conversation(touched=now)
            self._evict(self._max_conversations - 1)
        conversation.touched = now
        self._conversations[workflow_id] = conversation  # most recently used last
        self._expire(conversation, now)
        return conversation

    def _expire(self, conversation: _Conversation, now: float) -> None:
        ended_at = conversation.ended_at
        if ended_at is not None and not conversation.cleared and now - ended_at >= self._end_grace:
            conversation.activities, conversation.final, conversation.cleared = {}, None, True
            conversation.events = conversation.bytes = 0

    def _sweep(self, now: float) -> None:
        self._swept_at = now
        for workflow_id, conversation in list(self._conversations.items()):
            self._expire(conversation, now)
            if not conversation.readers and now - conversation.touched >= self._idle_after:
                del self._conversations[workflow_id]

    def _evict(self, keep: int) -> None:
        """Forget the least recently used conversations nobody reads until at most `keep` remain."""
        excess = len(self._conversations) - keep
        for workflow_id in list(self._conversations):
            if excess <= 0:
                break
            if not self._conversations[workflow_id].readers:
                del self._conversations[workflow_id]
                excess -= 1


def _slot(record: TurnEvent, place: ActivityPlace) -> tuple[str, tuple[int, int]]:
    """Where the hub keeps an event's activity, and how late its attempt is.

    A model request's activity id may carry a `#<n>` suffix: the workflow sent the step's request again as the
    n-th activity. Its events take the place of the earlier sends', as a retry's do.
    """
    if place.rank == 0:
        base, sep, n = record.activity_id.rpartition('#')
        if sep and n.isdigit():
            return base, (int(n), record.attempt)
    return record.activity_id, (1, record.attempt)
