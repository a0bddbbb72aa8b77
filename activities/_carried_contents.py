"""Large tool results that a long conversation carries to its next run by reference.

Each run of a long conversation holds, in its own history, the conversation it continues (the pages it loaded,
see `activities._handoff`), so a worker can rebuild whatever it lacks from the run it serves. That costs every run
as many bytes as the conversation, and a conversation of many large tool results (hundreds of steps of hundreds
of kilobytes) would soon need more than one history can hold. So a hand-over carries at most
`CARRIED_CONTENT_BUDGET` bytes of message JSON in full: past that, the oldest tool results of
`MIN_CARRIED_BY_REFERENCE` bytes or more travel as a reference in place of their content,
`{"carried_content": {"key": ..., "bytes": ..., "workflow_id": ..., "run_id": ...}}`, naming the content by hash
and the run whose history holds it.

The model still gets every result whole: the model-request activity puts each one back (`with_carried_contents`)
from the worker's store, or else from the history of the run the reference names. Code that reads the messages in
the workflow (instructions, workflow-side hooks, the `messages` query, a result's messages) sees the reference.
A reference can be followed as long as Temporal keeps that run's history, that is for the namespace's retention
period after the run closed; a content no longer found fails the model request with `CarriedContentMissing`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

import pydantic_core
from temporalio.client import Client
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from agent._parts import ModelMessage, ModelRequest, ToolReturnPart

from ._message_store import WorkerStore, content_key

__all__ = (
    'CARRIED_CONTENT_BUDGET',
    'CARRIED_CONTENT_MISSING',
    'MIN_CARRIED_BY_REFERENCE',
    'CarriedContent',
    'ConversationReader',
    'carried_reference',
    'carry_within_budget',
    'keep_contents',
    'with_carried_contents',
)

CARRIED_CONTENT_BUDGET = 8_000_000
"""Bytes of message JSON a conversation hands to its next run with every tool result in it."""

MIN_CARRIED_BY_REFERENCE = 64 * 1024
"""Tool results at least this large (JSON bytes) may be carried by reference once a conversation is past budget."""

CARRIED_CONTENT_MISSING = 'CarriedContentMissing'
"""The `ApplicationError` type of a model request whose conversation names a tool result no longer found."""

_FIELD = 'carried_content'


@dataclass(frozen=True)
class CarriedContent:
    """A tool result carried by reference: where its content is recorded."""

    key: str
    """The content's hash (`content_key` of its JSON)."""
    bytes: int
    """The size of its JSON."""
    workflow_id: str
    """The workflow whose run holds it in its history."""
    run_id: str
    """That run."""

    def as_content(self) -> dict[str, Any]:
        """The value put in the tool return part in place of the content."""
        return {_FIELD: asdict(self)}


def carried_reference(content: Any) -> CarriedContent | None:
    """The reference `content` is, if it is one."""
    if not (isinstance(content, dict) and len(content) == 1 and _FIELD in content):
        return None
    fields: Any = content[_FIELD]
    try:
        return CarriedContent(**fields)
    except TypeError:
        return None  # a tool's own result that happens to look alike


def carry_within_budget(
    messages: list[ModelMessage], sizes: list[int], workflow_id: str, run_id: str, store: WorkerStore
) -> list[ModelMessage]:
    """`messages` (of JSON `sizes`) with the oldest large tool results by reference until they fit the budget.

    The results taken out are kept in `store`, so a model request on this worker finds them at once.
    """
    total = sum(sizes)
    if total <= CARRIED_CONTENT_BUDGET:
        return messages
    carried = list(messages)
    for index, message in enumerate(carried):
        if total <= CARRIED_CONTENT_BUDGET:
            break
        if not isinstance(message, ModelRequest):
            continue
        parts = list(message.parts)
        for part_index, part in enumerate(parts):
            data = _large_content(part)
            if data is None:
                continue
            reference = CarriedContent(content_key(data), len(data), workflow_id, run_id)
            store.keep_content(reference.key, data, part.content)
            parts[part_index] = replace(part, content=reference.as_content())
            total -= len(data)
        carried[index] = replace(message, parts=parts)
    return carried


def keep_contents(messages: list[ModelMessage], store: WorkerStore) -> None:
    """Keep the large tool results of `messages` in `store` under their keys (to follow references to them)."""
    for message in messages:
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if (data := _large_content(part)) is not None:
                store.keep_content(content_key(data), data, part.content)


def _large_content(part: Any) -> bytes | None:
    """The JSON of a tool result large enough to carry by reference (`None` for other parts and references)."""
    if not isinstance(part, ToolReturnPart) or carried_reference(part.content) is not None:
        return None
    data = pydantic_core.to_json(part.content)
    return data if len(data) >= MIN_CARRIED_BY_REFERENCE else None


ConversationReader = Callable[[Client, str, str], Awaitable[list[ModelMessage]]]
"""`(client, workflow_id, run_id) -> messages`: the conversation a run ended with (`activities._handoff`)."""


async def with_carried_contents(
    messages: list[ModelMessage], store: WorkerStore, client: Client | None, read_conversation: ConversationReader
) -> list[ModelMessage]:
    """`messages` with every carried tool result put back, from `store` or the history of the run that holds it.

    Args:
        messages: The conversation of a model request.
        store: The worker's store.
        client: For reading histories (`None` outside an activity: only the store is used).
        read_conversation: Reads the conversation a run ended with.

    Raises:
        ApplicationError: non-retryable, of type `CARRIED_CONTENT_MISSING`, if a result is found nowhere.
    """
    references = [
        (index, part_index, reference)
        for index, message in enumerate(messages)
        if isinstance(message, ModelRequest)
        for part_index, part in enumerate(message.parts)
        if isinstance(part, ToolReturnPart) and (reference := carried_reference(part.content)) is not None
    ]
    if not references:
        return messages
    unread = {(r.workflow_id, r.run_id) for _, _, r in references if store.contents.get(r.key) is None}
    for workflow_id, run_id in sorted(unread):
        if client is None:
            break
        try:
            keep_contents(await read_conversation(client, workflow_id, run_id), store)
        except RPCError as exc:
            if exc.status != RPCStatusCode.NOT_FOUND:
                raise  # the server is unreachable for now: the activity is retried
            # Deleted (past retention): its results are missing, as said below.
    restored = list(messages)
    for index, part_index, reference in references:
        value = store.content(reference.key)
        if value is None:
            raise ApplicationError(
                f'A tool result of {reference.bytes} bytes that this conversation carries by reference is no longer '
                f'in the history of run {reference.run_id} of {reference.workflow_id!r} (Temporal keeps a closed '
                "run's history for the namespace's retention period). Continue in a new conversation, or keep "
                'results this large out of long conversations (a history processor that drops old ones).',
                type=CARRIED_CONTENT_MISSING,
                non_retryable=True,
            )
        message = restored[index]
        assert isinstance(message, ModelRequest)
        parts = list(message.parts)
        parts[part_index] = replace(parts[part_index], content=value)
        restored[index] = replace(message, parts=parts)
    return restored
