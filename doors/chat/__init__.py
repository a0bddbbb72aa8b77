"""Durable chat: a chat app's conversations as workflows, and their turns' events streamed live from the workers.

`TurnEventPublisher` (`InMemoryPublisher`, `HttpPublisher`) is the worker's event stream handler that sends each
activity's events to the chat server; `TurnEventHub` keeps each conversation's running turn there and replays it
to readers; `turn_events_route` is the chat server's endpoint for `HttpPublisher`. `DurableChatBackend` is the
chat app's backend over conversation workflows (`python -m doors.chat` serves the page with a worker).

The names below are imported when first used (PEP 562): `agents` reads the chat command's arguments from this
package (`_arguments`) without loading the chat server, the SDK and the agent runtime.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._arguments import DEFAULT_WORKER_TIMEOUT
    from ._backend import DurableChatBackend
    from ._http_relay import HttpPublisher
    from ._hub import StreamRestarted, TurnEventHub, TurnSubscription
    from ._hub_route import DEFAULT_MAX_BATCH_BYTES, TURN_EVENTS_PATH, turn_events_route
    from ._live_turn import TurnFailed
    from ._relay import EventSource, InMemoryPublisher, TurnEventPublisher
    from ._turn_events import TurnEvent
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

_HOMES = {
    '_arguments': ('DEFAULT_WORKER_TIMEOUT',),
    '_backend': ('DurableChatBackend',),
    '_http_relay': ('HttpPublisher',),
    '_hub': ('StreamRestarted', 'TurnEventHub', 'TurnSubscription'),
    '_hub_route': ('DEFAULT_MAX_BATCH_BYTES', 'TURN_EVENTS_PATH', 'turn_events_route'),
    '_live_turn': ('TurnFailed',),
    '_relay': ('EventSource', 'InMemoryPublisher', 'TurnEventPublisher'),
    '_turn_events': ('TurnEvent',),
    '_workflow_ids': ('CHAT_WORKFLOW_PREFIX', 'MAX_WORKFLOW_ID_BYTES', 'chat_workflow_id'),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use and kept here after."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    value = getattr(importlib.import_module(f'{__name__}.{module}'), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
