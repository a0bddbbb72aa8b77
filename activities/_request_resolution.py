"""Turning a model-request activity's input back into the whole request, from the input and the worker's store."""

from __future__ import annotations

from dataclasses import replace

from agent._parts import ModelMessage, ModelRequest
from agent.models import ModelRequestParameters

from ._message_store import WorkerStore, worker_store
from ._types import ModelRequestInput

__all__ = ('resolve_request',)


def resolve_request(
    inp: ModelRequestInput, store: WorkerStore = worker_store
) -> tuple[list[ModelMessage], ModelRequestParameters] | None:
    """The conversation and parameters of a model request; `None` if the input names something not kept here.

    Whatever the input carries is kept in `store` either way (messages, the conversation prefix, parameters),
    so replaying a run's inputs in order rebuilds the store (see `activities._history_recovery`).
    """
    parameters = inp.parameters
    if parameters is not None and inp.parameters_key is not None:
        store.parameters.put(inp.parameters_key, parameters)
    elif parameters is None and inp.parameters_key is not None:
        parameters = store.parameters.get(inp.parameters_key)
    messages = _with_contents(inp.messages, inp.contents, store)
    if messages is None:
        return None
    if not (inp.history or inp.prefix is not None or inp.message_keys):
        return None if parameters is None else (messages, parameters)  # sent in full, without keys
    included = dict(zip(inp.message_keys, messages, strict=True))
    if inp.history:
        store.extend_prefix(None, inp.history)
        resolved = store.resolve(inp.history, included)
    else:
        extended = store.extend_prefix(inp.prefix, inp.added if inp.added is not None else inp.message_keys)
        if extended is None:
            store.resolve([], included)  # the prefix is unknown here, but the new messages are kept anyway
            return None
        resolved = store.resolve(extended[1], included)
    if resolved is None or parameters is None:
        return None
    return resolved, parameters


def _with_contents(
    messages: list[ModelMessage], contents: dict[str, str], store: WorkerStore
) -> list[ModelMessage] | None:
    """`messages` with the tool results they name put back (`None` if one is not kept here)."""
    if not contents:
        return messages
    restored = list(messages)
    for ref, key in contents.items():
        message_index, part_index = (int(i) for i in ref.split('.'))
        value = store.content(key)
        message = restored[message_index]
        if value is None or not isinstance(message, ModelRequest):
            return None
        parts = list(message.parts)
        parts[part_index] = replace(parts[part_index], content=value)
        restored[message_index] = replace(message, parts=parts)
    return restored
