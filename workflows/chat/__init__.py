"""Durable chat: a chat app's conversations as workflows, and their turns' events streamed live from the workers.

`TurnEventPublisher` (`InMemoryPublisher`, `HttpPublisher`) is the worker's event stream handler that sends each
activity's events to the chat server; `TurnEventHub` keeps each conversation's running turn there and replays it
to readers; `turn_events_route` is the chat server's endpoint for `HttpPublisher`. `DurableChatBackend` is the
chat app's backend over conversation workflows (`python -m workflows.chat` serves the page with a worker).
"""

from ._backend import DurableChatBackend
from ._http_relay import HttpPublisher
from ._hub import StreamRestarted, TurnEventHub, TurnSubscription
from ._hub_route import DEFAULT_MAX_BATCH_BYTES, TURN_EVENTS_PATH, turn_events_route
from ._live_turn import TurnFailed
from ._relay import EventSource, InMemoryPublisher, TurnEventPublisher
from ._turn_events import TurnEvent
from ._worker_gate import DEFAULT_WORKER_TIMEOUT
from ._workflow_ids import CHAT_WORKFLOW_PREFIX, MAX_WORKFLOW_ID_BYTES, chat_workflow_id

__all__ = (
    'CHAT_WORKFLOW_PREFIX',
    'DEFAULT_MAX_BATCH_BYTES',
    'DEFAULT_WORKER_TIMEOUT',
    'MAX_WORKFLOW_ID_BYTES',
    'TURN_EVENTS_PATH',
    'DurableChatBackend',
    'EventSource',
    'HttpPublisher',
    'InMemoryPublisher',
    'StreamRestarted',
    'TurnEvent',
    'TurnEventHub',
    'TurnEventPublisher',
    'TurnFailed',
    'TurnSubscription',
    'chat_workflow_id',
    'turn_events_route',
)
