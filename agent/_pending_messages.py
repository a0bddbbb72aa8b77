"""Messages queued for a run (`ctx.enqueue`, `AgentRun.enqueue`) and how they join the conversation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ._env import now_utc
from ._parts import ModelMessage, ModelRequest, ModelRequestPart
from .exceptions import UserError

if TYPE_CHECKING:
    from ._agent_graph import GraphAgentDeps, GraphAgentState

__all__ = ('drain_pending', 'merge_requests', 'redirect_request')


def merge_requests(base: ModelRequest | None, parts: Sequence[ModelRequestPart]) -> ModelRequest:
    """`base` with `parts` added at its end (a new request of `parts` if there is no `base`)."""
    if base is None:
        return ModelRequest(parts=list(parts))
    return replace(base, parts=[*base.parts, *parts])


def drain_pending(deps: GraphAgentDeps[Any, Any], state: GraphAgentState, *, at_end: bool) -> list[ModelMessage]:
    """Take queued messages out of the run's queue, in the order they go into the history.

    Before a model request only `'asap'` messages drain; when the run would end (`at_end`) the `'asap'`
    ones left over drain first, then the `'when_idle'` ones. Each message keeps its own place in the
    history (the model still gets adjacent requests as one); the run's id, conversation id and a
    timestamp are filled in where the producer left them unset.
    """
    queue = deps.pending_messages
    wanted = ('asap', 'when_idle') if at_end else ('asap',)
    messages: list[ModelMessage] = []
    for priority in wanted:
        chosen = [entry for entry in queue if entry.priority == priority]
        queue[:] = [entry for entry in queue if entry.priority != priority]
        messages.extend(message for entry in chosen for message in entry.messages)
    for message in messages:
        message.timestamp = message.timestamp or now_utc()
        message.run_id = message.run_id or state.run_id
        message.conversation_id = message.conversation_id or state.conversation_id
    return messages


def redirect_request(messages: list[ModelMessage]) -> tuple[list[ModelMessage], ModelRequest]:
    """Split messages drained at the end of a run into those recorded as they are and the request to send.

    Raises:
        UserError: the last message is not a request (`enqueue` prevents that, but the queue is a plain list).
    """
    *before, last = messages
    if not isinstance(last, ModelRequest):
        raise UserError(
            'Enqueued content must end with a `ModelRequest` so the agent has a request to respond to, '
            f'but the last queued message is a `{type(last).__name__}`.'
        )
    return before, last
