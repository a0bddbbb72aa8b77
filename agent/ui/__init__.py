"""Serve agents to frontends: the base classes of the UI protocol adapters.

`UIAdapter` turns one protocol request into an agent run and `UIEventStream` turns the run's events into the
protocol's events; the protocols live in `agent.ui.ag_ui` and `agent.ui.vercel_ai`. `StateDeps` (or any
`StateHandler`) receives the frontend's state, and `MessagesBuilder` helps adapters group message parts.
"""

from ._adapter import UIAdapter
from ._event_stream import SSE_CONTENT_TYPE, NativeEvent, OnCompleteFunc, UIEventStream
from ._messages_builder import MessagesBuilder
from ._state import StateDeps, StateHandler

__all__ = (
    'SSE_CONTENT_TYPE',
    'MessagesBuilder',
    'NativeEvent',
    'OnCompleteFunc',
    'StateDeps',
    'StateHandler',
    'UIAdapter',
    'UIEventStream',
)
