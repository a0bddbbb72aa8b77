"""Durable chat: a chat app's conversations as workflows, and their turns' events streamed live from the workers.

`TurnEventPublisher` (`InMemoryPublisher`, `HttpPublisher`) is the worker's event stream handler that sends each
activity's events to the chat server; `TurnEventHub` keeps each conversation's running turn there and replays it
to readers; `turn_events_route` is the chat server's endpoint for `HttpPublisher`.
"""

from ._http_relay import HttpPublisher
from ._hub import StreamRestarted, TurnEventHub, TurnSubscription
from ._hub_route import DEFAULT_MAX_BATCH_BYTES, TURN_EVENTS_PATH, turn_events_route
from ._relay import EventSource, InMemoryPublisher, TurnEventPublisher
from ._turn_events import TurnEvent

__all__ = (
    'DEFAULT_MAX_BATCH_BYTES',
    'TURN_EVENTS_PATH',
    'EventSource',
    'HttpPublisher',
    'InMemoryPublisher',
    'StreamRestarted',
    'TurnEvent',
    'TurnEventHub',
    'TurnEventPublisher',
    'TurnSubscription',
    'turn_events_route',
)
