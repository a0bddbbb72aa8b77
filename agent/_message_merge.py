"""Consecutive requests in a history, as the model gets them: one request.

A history may hold two requests in a row: the tool results a run ended with (waiting for approvals, say) and the
next run's prompt, or the results of calls answered before and after a pause. The history keeps them apart (each
run's `new_messages()` holds its own), but providers expect user and assistant turns to alternate, so the model is
sent them as one request, tool results first.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._parts import ModelMessage, ModelRequest, RetryPromptPart, ToolReturnPart

__all__ = ('merge_consecutive_requests',)


def merge_consecutive_requests(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """A copy of `messages` with each run of consecutive requests merged into one (the originals are untouched).

    The merged request lists the tool results and retry prompts of all of them first, then their other parts, each
    group in order; it takes the later request's timestamp and the instructions either has (requests whose
    instructions differ stay apart, since the model must get each one's own), and no run ids or metadata.
    """
    merged: list[ModelMessage] = []
    for message in messages:
        previous = merged[-1] if merged else None
        if (
            isinstance(message, ModelRequest)
            and isinstance(previous, ModelRequest)
            and (not previous.instructions or not message.instructions or previous.instructions == message.instructions)
        ):
            parts = [*previous.parts, *message.parts]
            results = [p for p in parts if isinstance(p, ToolReturnPart | RetryPromptPart)]
            others = [p for p in parts if not isinstance(p, ToolReturnPart | RetryPromptPart)]
            # A new request, not a copy of either: its run ids and metadata would belong to only one of them.
            merged[-1] = ModelRequest(
                parts=[*results, *others],
                instructions=previous.instructions or message.instructions,
                timestamp=message.timestamp or previous.timestamp,
            )
        else:
            merged.append(message)
    return merged
