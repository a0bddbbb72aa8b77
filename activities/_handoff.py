"""Handing a long conversation from one workflow run to the next without one oversized payload.

Temporal refuses a payload over ~2 MB, and continue-as-new passes its input as one. A conversation whose
history is larger than that cannot travel as input, so the ending run writes its new messages into its own
history in bounded chunks (the inputs of `agent.<agent>.history.stash` activities), and continues as new with a
reference to itself. The next run reads the history back with `agent.<agent>.history.load` activities, a
bounded page at a time; each page becomes an activity result in the new run's history. A run's conversation is
therefore, in order: the history its input carried, the pages it loaded, and the chunks it stashed, all of which
the `load` activity finds in that run's event history. Nothing lives outside Temporal, and a worker that never
saw the conversation (or restarted) reads it the same way.

Loaded messages also go into the worker's message store, so the next model request names them by hash instead
of sending them again (see `activities._message_store`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pydantic
from temporalio import activity
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from agent._parts import ModelMessage

from ._carried_contents import carry_within_budget
from ._message_store import LruStore, message_hash, worker_store
from ._names import history_load_activity_name, history_stash_activity_name

__all__ = ('HistoryPage', 'LoadHistoryInput', 'StashHistoryInput', 'handoff_activities', 'message_size')

PAGE_BUDGET = 1_000_000
"""Bytes of message JSON one page (an activity input or result) carries at most: half of a payload's limit."""

_MESSAGES: pydantic.TypeAdapter[list[ModelMessage]] = pydantic.TypeAdapter(list[ModelMessage])
_MESSAGE: pydantic.TypeAdapter[ModelMessage] = pydantic.TypeAdapter(ModelMessage)


def message_size(message: ModelMessage) -> int:
    """Bytes of the message's JSON."""
    return len(_MESSAGE.dump_json(message))


@dataclass
class StashHistoryInput:
    """Input of `agent.<agent>.history.stash`: messages written into the run's history for the next run."""

    messages: list[ModelMessage]
    """Consecutive messages of the conversation."""
    start: int = 0
    """The index of the first of them in the conversation (a later stash from the same index replaces it)."""


@dataclass
class LoadHistoryInput:
    """Input of `agent.<agent>.history.load`: a page of an earlier run's conversation."""

    workflow_id: str
    """The workflow whose run holds the conversation."""
    run_id: str
    """That run."""
    offset: int = 0
    """Index of the first message."""


@dataclass
class HistoryPage:
    """Output of `agent.<agent>.history.load`."""

    messages: list[ModelMessage] = field(default_factory=list[ModelMessage])
    """Messages from the offset, as many as fit in `PAGE_BUDGET` (at least one)."""
    total: int = 0
    """How many messages the conversation has."""


# Conversations read recently, by run, as handed over: a run loads its predecessor's conversation a page at a time.
_carried: LruStore[str, list[ModelMessage]] = LruStore(4)


async def read_conversation(client: Client, workflow_id: str, run_id: str) -> list[ModelMessage]:
    """The conversation a workflow run ended with: its input history, then its loaded pages and stashed chunks."""
    converter = client.data_converter
    messages: list[ModelMessage] = []
    scheduled: dict[int, str] = {}
    handle = client.get_workflow_handle(workflow_id, run_id=run_id)
    async for event in handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
            payloads = event.workflow_execution_started_event_attributes.input.payloads
            [raw] = await converter.decode(payloads[:1]) if payloads else [None]
            history: Any = raw.get('message_history') if isinstance(raw, dict) else None
            if history:
                messages.extend(_MESSAGES.validate_python(history))
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attributes = event.activity_task_scheduled_event_attributes
            kind = attributes.activity_type.name
            scheduled[event.event_id] = kind
            if kind.endswith('.history.stash'):
                [stashed] = await converter.decode(attributes.input.payloads, [StashHistoryInput])
                # A run that stashed, then took another turn before continuing as new, stashes again from the
                # same point: the later chunks replace the earlier ones.
                del messages[stashed.start :]
                messages.extend(stashed.messages)
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            attributes = event.activity_task_completed_event_attributes
            if scheduled.get(attributes.scheduled_event_id, '').endswith('.history.load'):
                [page] = await converter.decode(attributes.result.payloads, [HistoryPage])
                messages.extend(page.messages)
    return messages


def page_of(messages: list[ModelMessage], offset: int, budget: int = PAGE_BUDGET) -> list[ModelMessage]:
    """Messages from `offset` while they fit in `budget` bytes (at least one)."""
    page: list[ModelMessage] = []
    total = 0
    for message in messages[offset:]:
        total += message_size(message)
        if page and total > budget:
            break
        page.append(message)
    return page


def handoff_activities(agent_name: str) -> list[Any]:
    """The stash and load activities of agent `agent_name`."""

    @activity.defn(name=history_stash_activity_name(agent_name))
    async def stash_history(inp: StashHistoryInput) -> None:
        # The input is the point: it is now part of the run's history. Keeping the messages here too lets the
        # next run, most likely on this worker, name them by hash in its first model request.
        for message in inp.messages:
            worker_store.messages.put(message_hash(message), message)

    @activity.defn(name=history_load_activity_name(agent_name))
    async def load_history(inp: LoadHistoryInput) -> HistoryPage:
        messages = _carried.get(inp.run_id)
        if messages is None:
            messages = await read_conversation(activity.client(), inp.workflow_id, inp.run_id)
            sizes = [message_size(message) for message in messages]
            messages = carry_within_budget(messages, sizes, inp.workflow_id, inp.run_id, worker_store)
            _carried.put(inp.run_id, messages)
        page = page_of(messages, inp.offset)
        for message in page:
            worker_store.messages.put(message_hash(message), message)
        return HistoryPage(page, len(messages))

    return [stash_history, load_history]
