"""The history a model request's `before_model_request` hooks (history processors among them) leave becomes the run's.

What the hooks return is what the model gets (adjacent requests merged into one) and it replaces the run's message
history, so `all_messages()` and `new_messages()` show what the model saw: a processor that drops old messages drops
them from the run's history too. The run's own messages are then found again by their `run_id` (a processor may
drop, reorder or insert messages), except that a request the run resumed from the history given to it stays part of
that history.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ._env import now_utc
from ._message_merge import merge_consecutive_requests
from ._model_request_context import ModelRequestContext
from ._parts import ModelMessage, ModelRequest
from .exceptions import UserError

if TYPE_CHECKING:
    from ._agent_graph import GraphAgentDeps, GraphAgentState

__all__ = (
    'HistorySink',
    'adopt_processed_history',
    'check_processed_history',
    'first_new_message_index',
    'for_the_model',
)

HistorySink = Callable[[list[ModelMessage]], None]
"""Takes the history the `before_model_request` hooks left (the run adopts it as its own)."""


def for_the_model(adopt: HistorySink | None) -> Callable[[ModelRequestContext], ModelRequestContext]:
    """What happens between `before_model_request` and `wrap_model_request`: `adopt` gets the processed history,
    and the model gets it with adjacent requests merged (providers expect user and model turns to alternate).
    """

    def prepared(request_context: ModelRequestContext) -> ModelRequestContext:
        if adopt is not None:
            adopt(request_context.messages)
        return replace(request_context, messages=merge_consecutive_requests(request_context.messages))

    return prepared


def check_processed_history(messages: Sequence[ModelMessage]) -> None:
    """Refuse a processed history the model cannot be sent.

    Raises:
        UserError: the history is empty, or does not end with a request.
    """
    if not messages:
        raise UserError('Processed history cannot be empty.')
    if not isinstance(messages[-1], ModelRequest):
        raise UserError('Processed history must end with a `ModelRequest`.')


def first_new_message_index(
    messages: Sequence[ModelMessage], run_id: str, resumed_request: ModelRequest | None = None
) -> int:
    """Where the messages of run `run_id` start in `messages` (`len(messages)` if none is there).

    A request the run resumed (the history it was given ended with it, and there was no new prompt) carries the
    run's id but belongs to the history given: the run's messages start after it.
    """
    if resumed_request is not None:
        for index, message in enumerate(messages):
            if message is resumed_request:
                return index + 1
        # A processor may have rebuilt it: the last request equal to it in content is the one.
        for index in range(len(messages) - 1, -1, -1):
            if _same_request(messages[index], resumed_request):
                return index + 1
    return next((i for i, message in enumerate(messages) if message.run_id == run_id), len(messages))


def _same_request(message: ModelMessage, request: ModelRequest) -> bool:
    return (
        isinstance(message, ModelRequest)
        and message.parts == request.parts
        and message.timestamp == request.timestamp
        and message.instructions == request.instructions
        and message.metadata == request.metadata
    )


def adopt_processed_history(
    state: GraphAgentState, deps: GraphAgentDeps[Any, Any], messages: Sequence[ModelMessage]
) -> None:
    """Make `messages` (the model-request hooks' output) the run's message history.

    The last request gets the run's ids and a timestamp where it has none (a processor may have built it anew).
    The history list is changed in place: `ctx.messages` and the run's result hold the same list.

    Raises:
        UserError: the history is empty, or does not end with a request.
    """
    check_processed_history(messages)
    last = messages[-1]
    last.timestamp = last.timestamp or now_utc()
    last.run_id = last.run_id or state.run_id
    last.conversation_id = last.conversation_id or state.conversation_id
    if messages is not state.message_history:
        state.message_history[:] = messages
    deps.new_message_index = first_new_message_index(state.message_history, state.run_id, deps.resumed_request)
