"""Reading what a failed run wrote to its history: its failure, its activity attempts, and every byte it holds."""

from __future__ import annotations

import asyncio
import uuid
import zlib
from typing import Any

from google.protobuf.message import Message
from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import History as HistoryProto
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.client import WorkflowHistory as History
from temporalio.exceptions import FailureError

from agent import Agent
from worker import build_worker
from workflows import AgentRunInput, AgentWorkflow

RUN_TIMEOUT = 30
"""Seconds a run that should fail at once may take: generous, since a loaded machine can take seconds to start a
worker and import a provider's SDK. A run that retries forever never ends within it; one that retried before it
failed is caught by its attempt count in history."""


async def failed_run(
    client: Client, task_queue: str, agent: Agent[Any, Any], name: str, **run_input: Any
) -> tuple[WorkflowFailureError, History]:
    """Run `agent` until it fails (within `RUN_TIMEOUT`), and return the failure and the run's history."""
    async with build_worker(client, {name: agent}, task_queue=task_queue):
        handle: WorkflowHandle[Any, Any] = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent=name, prompt='Hi!', **run_input),
            id=f'{name}-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        try:
            await asyncio.wait_for(handle.result(), RUN_TIMEOUT)
        except WorkflowFailureError as exc:
            return exc, await handle.fetch_history()
        finally:
            await _terminate_if_running(handle)
    raise AssertionError('the run completed instead of failing')


async def _terminate_if_running(handle: WorkflowHandle[Any, Any]) -> None:
    description = await handle.describe()
    if description.status is not None and description.status.name == 'RUNNING':
        await handle.terminate('the test is over')


def failure_messages(error: BaseException | None) -> list[str]:
    """The messages of a failure and its causes as written to history, outermost first."""
    messages: list[str] = []
    while error is not None:
        # An ApplicationError's str() adds its type in front: the message is what history holds.
        messages.append(error.message if isinstance(error, FailureError) else str(error))
        error = error.__cause__
    return messages


def activity_attempts(history: History, activity_type_suffix: str) -> list[int]:
    """The attempt numbers of the started events of the activities whose type ends with `activity_type_suffix`."""
    scheduled: dict[int, str] = {}
    attempts: list[int] = []
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            scheduled[event.event_id] = event.activity_task_scheduled_event_attributes.activity_type.name
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            attributes = event.activity_task_started_event_attributes
            if scheduled[attributes.scheduled_event_id].endswith(activity_type_suffix):
                attempts.append(attributes.attempt)
    return attempts


def workflow_task_failures(history: History) -> int:
    """How many workflow tasks failed (a run whose task retries forever has many)."""
    return sum(1 for e in history.events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)


def history_bytes(history: History) -> bytes:
    """The history's serialized form followed by every payload's data, inflated when it is stored deflated."""
    proto = HistoryProto(events=history.events)
    chunks = [proto.SerializeToString()]
    for payload in _payloads(proto):
        if payload.metadata.get('encoding') == b'json/zlib':
            chunks.append(zlib.decompress(payload.data))
    return b'\n'.join(chunks)


def _payloads(message: Message) -> list[Payload]:
    if isinstance(message, Payload):
        return [message]
    found: list[Payload] = []
    for _, value in message.ListFields():
        if isinstance(value, Message):
            items: list[Any] = [value]
        elif isinstance(value, str | bytes | int | float):
            continue
        else:  # a repeated field or a map
            items = list(value.values() if hasattr(value, 'values') else value)
        for item in items:
            if isinstance(item, Message):
                found.extend(_payloads(item))
    return found
