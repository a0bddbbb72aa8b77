"""Publishing a durable turn's events from the worker's activities to the chat server, as they happen.

A turn's events happen in activities: the model-request activity streams the response from the provider, the
tool activities run the tools (see `activities._event_streams`). A chat page wants them while they happen, not
when the turn is over. A `TurnEventPublisher` is the `DurableAgent.event_stream_handler` that sends them: it tags
each event with its workflow, run, activity id, attempt and position (`TurnEvent`) and ships it to the chat
server's `TurnEventHub`, which turns tagged, possibly retried events into a consistent stream per conversation.

    publisher = HttpPublisher('http://chat:8000/internal/turn-events', token)
    build_worker(client, {'assistant': DurableAgent(agent, event_stream_handler=publisher)})

Why a direct channel from worker to chat server, and not Temporal's Workflow Streams
(`temporalio.contrib.workflow_streams`): Workflow Streams carry publishes as signals and serve readers with
polling updates, so every batch of events becomes workflow history, each delta makes a round trip through the
Temporal server (about 100 ms), and a conversation's history, which this project keeps small and linear (an
activity per model request and tool call, continued as new when it grows), fills with per-token events that
replay must then step through. What a page shows while a turn runs does not need to be durable: the turn's
result is, and it is in the history already. So the events travel beside Temporal, best effort, and the history
stays the source of truth: a reader that missed events gets the turn's result at its end, and a reload reads the
history. A retried activity is told apart by its attempt number (the hub drops the earlier attempt's events).

Two transports behind one interface, both non-blocking for the activity:

- `InMemoryPublisher`: the worker and the chat server share a process (the demo); events go straight into the
  hub, no copy, no serialization.
- `HttpPublisher` (`_http_relay`): the worker posts NDJSON batches to the chat server's `POST
  /internal/turn-events` (`turn_events_route`) with a shared token. One sender per worker process posts what
  queued, at most one request per `linger` (10 ms): a delta after a pause goes at once, a busy stream (or many
  turns on one worker) goes in batches, so the request rate stays bounded whatever the token rate. The queue
  is bounded and a chat server that is down or slow costs the activity nothing: events are dropped (counted,
  logged once per outage) until it answers again. At the end of each activity the publisher waits briefly
  (`flush_timeout`) for its events to be taken, so the hub has them before the workflow moves on to the next
  step, keeping steps in order across workers.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from temporalio import activity

from agent._run_context import RunContext

from ._hub import TurnEventHub
from ._turn_events import TurnEvent

__all__ = ('EventSource', 'InMemoryPublisher', 'TurnEventPublisher')

logger = logging.getLogger('doors.chat')


@dataclass(frozen=True, kw_only=True)
class EventSource:
    """The activity attempt a stream of events comes from."""

    workflow_id: str
    """The workflow (for a chat: the conversation's workflow)."""
    run_id: str
    """The workflow run."""
    activity_id: str
    """The activity: `<turn>.<step>.model` or `<turn>.<step>.tool.<tool call id>`."""
    attempt: int
    """The activity's attempt, from 1."""

    @classmethod
    def current(cls) -> EventSource | None:
        """The running activity's attempt, or `None` outside a workflow's activity."""
        if not activity.in_activity():
            return None
        info = activity.info()
        if info.workflow_id is None or info.workflow_run_id is None:
            return None  # an activity started on its own: no conversation to show it in
        return cls(
            workflow_id=info.workflow_id,
            run_id=info.workflow_run_id,
            activity_id=info.activity_id,
            attempt=info.attempt,
        )


class TurnEventPublisher(ABC):
    """An event stream handler that publishes each activity's events, tagged with their source, to a hub.

    Pass it as `DurableAgent(event_stream_handler=...)`. It never fails or holds up the activity: events that
    cannot be sent are dropped (see the module docstring). Called outside an activity it reads and drops the events.
    """

    async def __call__(self, ctx: RunContext[Any], events: AsyncIterator[Any]) -> None:
        """Publish the events of the running activity attempt."""
        source = EventSource.current()
        if source is None:
            async for _ in events:
                pass
            return
        await self.publish(source, events)

    async def publish(self, source: EventSource, events: AsyncIterator[Any]) -> None:
        """Publish `events`, all from `source`, numbered from 0, then wait briefly for them to be taken."""
        seq = 0
        # Errors of the stream itself (a capability wrapping it) are the activity's; only the sending is guarded.
        async for event in events:
            record = TurnEvent(
                workflow_id=source.workflow_id,
                run_id=source.run_id,
                activity_id=source.activity_id,
                attempt=source.attempt,
                seq=seq,
                event=event,
                at=time.time(),
            )
            seq += 1
            try:
                self._send(record)
            except Exception as exc:  # a dropped event leaves a gap, which the hub handles
                logger.warning('Turn event of %s not published: %r', source.activity_id, exc)
        try:
            await self._settle()
        except Exception as exc:
            logger.warning('Turn events of %s not confirmed: %r', source.activity_id, exc)

    @abstractmethod
    def _send(self, record: TurnEvent) -> None:
        """Hand one event to the transport without waiting."""

    async def _settle(self) -> None:
        """Wait (briefly, never failing) until what was sent so far is in the hub."""
        return None  # in memory, sending is taking


class InMemoryPublisher(TurnEventPublisher):
    """Publishes to a hub in the same process and event loop (the worker and the chat server run together).

    Events are handed over as they are, not copied: the agent's events are not changed once emitted.
    """

    def __init__(self, hub: TurnEventHub) -> None:
        """Publish to `hub`."""
        self._hub = hub

    def _send(self, record: TurnEvent) -> None:
        self._hub.ingest(record)
