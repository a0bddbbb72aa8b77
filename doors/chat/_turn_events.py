"""`TurnEvent`: one event of a durable turn, tagged with where it happened, as it travels to the chat server.

The tags are what lets the chat server rebuild a turn from events that arrive late, twice, or from a retried
attempt: the workflow (the conversation), its run and the activity (`<turn>.<step>.model` or
`<turn>.<step>.tool.<call id>`, see `workflows._activity_ids`), the activity's attempt, and the event's position
in that attempt's stream. On the wire a turn event is one line of JSON (NDJSON in batches).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pydantic

from agent._events import AgentStreamEvent

__all__ = ('ActivityPlace', 'TurnEvent', 'decode_turn_event', 'encode_turn_event')


@dataclass(frozen=True, kw_only=True)
class TurnEvent:
    """An event of a model request or tool call, from the activity where it happened."""

    workflow_id: str
    """The workflow (for a chat: the conversation's workflow)."""
    run_id: str
    """The workflow run: a conversation that continued as new numbers its turns afresh."""
    activity_id: str
    """The activity: `<turn>.<step>.model` or `<turn>.<step>.tool.<tool call id>`."""
    attempt: int
    """The activity's attempt, from 1: a retry's events replace the earlier attempt's."""
    seq: int
    """The event's position in its attempt's stream, from 0."""
    event: AgentStreamEvent
    """The event."""
    at: float = 0.0
    """When the worker published it (seconds since the epoch), to measure how long it took to arrive."""


_ADAPTER: pydantic.TypeAdapter[TurnEvent] = pydantic.TypeAdapter(TurnEvent)


def encode_turn_event(record: TurnEvent) -> bytes:
    """One NDJSON line (newline included); a tool result that is not JSON travels as its `repr`."""
    return _ADAPTER.dump_json(record, fallback=repr) + b'\n'


def decode_turn_event(line: bytes | str) -> TurnEvent:
    """The turn event on one line.

    Raises:
        pydantic.ValidationError: The line is not a turn event.
    """
    return _ADAPTER.validate_json(line)


_RANKS: dict[str, Literal[0, 1, 2]] = {'model': 0, 'tool': 1}


@dataclass(frozen=True)
class ActivityPlace:
    """Where an activity sits in its run: which turn and step, and whether it is the step's model request."""

    turn: int
    """The run's turn (agent run) the activity belongs to, from 1."""
    step: int
    """The step within the turn."""
    rank: Literal[0, 1, 2]
    """0 for the model request, 1 for a tool call, 2 for anything else: within a step, the order events come in."""

    @classmethod
    def parse(cls, activity_id: str) -> ActivityPlace | None:
        """The place named by an agent workflow's activity id, or `None` for an id of another shape."""
        turn, _, rest = activity_id.partition('.')
        step, _, what = rest.partition('.')
        if not (turn.isdigit() and step.isdigit() and what):
            return None
        return cls(int(turn), int(step), _RANKS.get(what.partition('.')[0].partition('#')[0], 2))
