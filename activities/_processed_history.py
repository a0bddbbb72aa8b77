"""A durable run adopts the history its activity-side history processors left, as an in-process run does.

History processors (`ProcessHistory`, and any `before_model_request` hook) are user code that may do I/O (ask a
model for a summary), so in a durable run they run in the model-request activity, next to the model. What they
return is what the model gets and, in-process, it becomes the run's message history (see
`agent._processed_history`). The activity therefore hands the processed history back to the workflow, which
adopts it: `all_messages()`, `new_messages()` and every later request see the same history in both kinds of run.

To keep the activity's result small, the processed history is named against the request's own messages: a
message the hooks kept as it was (compared by content hash, so one changed in place is caught) is an index, and
only messages they made or changed travel in full. Hooks that changed nothing send nothing back.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent._parts import ModelMessage
from agent._processed_history import check_processed_history

from ._message_store import message_hash
from ._types import ProcessedHistory

__all__ = ('HistoryRecorder', 'processed_messages')


class HistoryRecorder:
    """Takes the history the hooks left (as the `adopt` of a model request) and names it against the request's."""

    def __init__(self, sent: Sequence[ModelMessage]) -> None:
        # Hashed before the hooks run: a hook may change the very message objects it was given.
        self._sent_keys = [message_hash(message) for message in sent]
        self._processed: list[ModelMessage] | None = None

    def __call__(self, messages: list[ModelMessage]) -> None:
        # Checked here, before the model is asked, as in-process.
        check_processed_history(messages)
        self._processed = list(messages)

    def result(self) -> ProcessedHistory | None:
        """The processed history relative to the request's messages, or `None` if the hooks left it as sent."""
        if self._processed is None:
            return None
        keys = [message_hash(message) for message in self._processed]
        if keys == self._sent_keys:
            return None
        index_of: dict[str, int] = {}
        for index, key in enumerate(self._sent_keys):
            index_of.setdefault(key, index)
        order: list[int] = []
        changed: list[ModelMessage] = []
        for key, message in zip(keys, self._processed, strict=True):
            index = index_of.get(key)
            if index is None:
                order.append(-1)
                changed.append(message)
            else:
                order.append(index)
        return ProcessedHistory(order=order, changed=changed)


def processed_messages(processed: ProcessedHistory, sent: Sequence[ModelMessage]) -> list[ModelMessage]:
    """The processed history itself: the workflow's own message objects where the hooks kept them."""
    changed = iter(processed.changed)
    return [next(changed) if index < 0 else sent[index] for index in processed.order]
