"""Rebuilding a worker's store for one run from the run's own history.

A model-request activity names what it expects the worker to keep (see `activities._message_store`). A worker
that lacks some of it (it restarted, or earlier activities of the run ran on other workers) can recover all of
it from the workflow's history, which holds every message the run sent, every tool result and every model
response: it reads the history once and replays the run's earlier model-request inputs and tool and model
outputs into its store. Only if that fails does the activity ask the workflow to resend everything, which
for a long conversation could pass Temporal's payload size limit.
"""

from __future__ import annotations

import logging
from typing import Any

from temporalio import activity
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client

from ._handoff import HistoryPage
from ._message_store import WorkerStore, message_hash
from ._types import CallToolOutput, ModelRequestInput, ModelRequestOutput

__all__ = ('recover_from_history',)

log = logging.getLogger(__name__)


async def recover_from_history(store: WorkerStore, apply_input: Any) -> bool:
    """Fill `store` from the current activity's workflow history; `False` if the history could not be read.

    Args:
        store: The worker's store.
        apply_input: Puts one model-request input's messages, prefix and parameters into the store (returns
            whether everything it names was there).
    """
    info = activity.info()
    try:
        client = activity.client()
    except RuntimeError:
        return False
    try:
        await _replay_into(store, client, info.workflow_id or '', info.workflow_run_id or '', apply_input)
    except Exception:
        log.warning('Could not rebuild messages from the history of %s', info.workflow_id, exc_info=True)
        return False
    return True


async def _replay_into(store: WorkerStore, client: Client, workflow_id: str, run_id: str, apply_input: Any) -> None:
    converter = client.data_converter
    scheduled: dict[int, str] = {}
    handle = client.get_workflow_handle(workflow_id, run_id=run_id)
    async for event in handle.fetch_history_events():
        kind = _activity_kind(event, scheduled)
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            if kind == 'model_request':
                payloads = event.activity_task_scheduled_event_attributes.input.payloads
                [inp] = await converter.decode(payloads, [ModelRequestInput])
                apply_input(inp)
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            payloads = event.activity_task_completed_event_attributes.result.payloads
            if kind == 'call_tool':
                [output] = await converter.decode(payloads, [CallToolOutput])
                if output.content_key is not None:
                    store.put_content(output.content_key, output.result)
            elif kind == 'model_request':
                [output] = await converter.decode(payloads, [ModelRequestOutput])
                if output.response is not None and output.response_key is not None:
                    store.messages.put(output.response_key, output.response)
            elif kind == 'load':
                # A page of the conversation handed over from the previous run (see `activities._handoff`).
                [page] = await converter.decode(payloads, [HistoryPage])
                for message in page.messages:
                    store.messages.put(message_hash(message), message)


def _activity_kind(event: HistoryEvent, scheduled: dict[int, str]) -> str | None:
    """`model_request`, `call_tool` or another activity's last name segment; `None` for other events."""
    if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        name = event.activity_task_scheduled_event_attributes.activity_type.name
        kind = name.rsplit('.', 1)[-1]
        scheduled[event.event_id] = kind
        return kind
    if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
        return scheduled.get(event.activity_task_completed_event_attributes.scheduled_event_id)
    return None
