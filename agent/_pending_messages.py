"""Messages queued for a run (`ctx.enqueue`, `AgentRun.enqueue`) and how they join the request about to be sent."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ._parts import ModelMessage, ModelRequest, ModelRequestPart
from .exceptions import UserError

if TYPE_CHECKING:
    from ._agent_graph import GraphAgentDeps

__all__ = ('drain_pending', 'merge_requests')


def merge_requests(base: ModelRequest | None, parts: Sequence[ModelRequestPart]) -> ModelRequest:
    """`base` with `parts` added at its end (a new request of `parts` if there is no `base`)."""
    if base is None:
        return ModelRequest(parts=list(parts))
    return replace(base, parts=[*base.parts, *parts])


def drain_pending(
    deps: GraphAgentDeps[Any, Any], request: ModelRequest | None, *, include_idle: bool
) -> tuple[list[ModelMessage], ModelRequest | None]:
    """Take queued messages out of the run's queue.

    Returns messages to insert before the request and the request extended with queued request parts.
    `'asap'` messages always drain; `'when_idle'` ones only with `include_idle` (the run would end).
    """
    queue = deps.pending_messages
    chosen = [m for m in queue if m.priority == 'asap']
    if include_idle and not chosen:
        chosen = [m for m in queue if m.priority == 'when_idle']
    if not chosen:
        return [], request
    for item in chosen:
        queue.remove(item)
    messages = [message for item in chosen for message in item.messages]
    # A trailing request merges into the request about to be sent; earlier messages go before it.
    before: list[ModelMessage] = []
    if request is not None and messages and isinstance(messages[0], ModelRequest):
        request = merge_requests(request, messages[0].parts)
        messages = messages[1:]
    if messages:
        before = [request, *messages[:-1]] if request is not None else list(messages[:-1])
        last = messages[-1]
        if not isinstance(last, ModelRequest):
            # `enqueue` checks this up front, but the queue is a plain list anyone can append to.
            raise UserError(
                'Enqueued content must end with a `ModelRequest` so the agent has a request to respond to, '
                f'but the last queued message is a `{type(last).__name__}`.'
            )
        request = last
    return before, request
