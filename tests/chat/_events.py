"""Turn events for the chat tests: text streamed by model activities and tool calls, and the text a reader sees."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from typing import Any

from agent.messages import (
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    PartDeltaEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ToolCallPart,
    ToolReturnPart,
)
from doors.chat import TurnEvent

BOUND = 5.0


def text_event(seq: int, text: str) -> PartStartEvent | PartDeltaEvent:
    """The first piece of a text part starts it; the others are deltas."""
    return PartStartEvent(0, TextPart(text)) if seq == 0 else PartDeltaEvent(0, TextPartDelta(text))


def streamed(
    activity_id: str, *pieces: str, attempt: int = 1, first: int = 0, workflow_id: str = 'conv', run_id: str = 'run'
) -> list[TurnEvent]:
    """A model activity's text, piece by piece, numbered from `first`."""
    return [
        TurnEvent(
            workflow_id=workflow_id,
            run_id=run_id,
            activity_id=activity_id,
            attempt=attempt,
            seq=seq,
            event=text_event(seq, piece),
        )
        for seq, piece in enumerate(pieces, start=first)
    ]


def tool_call(activity_id: str, name: str, result: str, *, workflow_id: str = 'conv') -> list[TurnEvent]:
    """A tool activity's call and result events."""
    call = ToolCallPart(name, {}, activity_id)
    events = [FunctionToolCallEvent(call), FunctionToolResultEvent(ToolReturnPart(name, result, activity_id))]
    return [
        TurnEvent(workflow_id=workflow_id, run_id='run', activity_id=activity_id, attempt=1, seq=seq, event=event)
        for seq, event in enumerate(events)
    ]


def describe(events: Iterable[Any]) -> list[str]:
    """Text pieces as `text:...`, tool events as `call:<name>` / `result:<content>`, anything else by type."""
    described: list[str] = []
    for event in events:
        if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
            described.append(f'text:{event.part.content}')
        elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
            described.append(f'text:{event.delta.content_delta}')
        elif isinstance(event, FunctionToolCallEvent):
            described.append(f'call:{event.part.tool_name}')
        elif isinstance(event, FunctionToolResultEvent):
            described.append(f'result:{event.part.content}')
        else:
            described.append(type(event).__name__)
    return described


async def take(events: AsyncIterator[Any], count: int) -> list[Any]:
    """The next `count` events (failing after a bound if they do not come)."""
    async with asyncio.timeout(BOUND):
        return [await anext(events) for _ in range(count)]


async def rest(events: AsyncIterator[Any]) -> list[Any]:
    """Every event until the iterator ends (failing after a bound if it does not)."""
    async with asyncio.timeout(BOUND):
        return [event async for event in events]
