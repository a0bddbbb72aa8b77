"""When a run's own history has grown enough to continue as new (see `history_is_full`)."""

from __future__ import annotations

from temporalio import workflow

__all__ = ('CONTINUE_AFTER_BYTES', 'CONTINUE_AFTER_EVENTS', 'HISTORY_BYTES_CEILING', 'history_is_full')

CONTINUE_AFTER_EVENTS = 1000
"""Events a run adds to its own history before it follows Temporal's suggestion to continue as new."""
CONTINUE_AFTER_BYTES = 2 * 1024 * 1024
"""Bytes a run adds to its own history before it follows Temporal's suggestion to continue as new."""
HISTORY_BYTES_CEILING = 40 * 1024 * 1024
"""A history this large continues as new at the next consistent point whatever else (Temporal's limit is 50 MB)."""


def history_is_full(history_at_start: tuple[int, int]) -> bool:
    """Temporal suggests continuing as new, and this run has added enough to its history for that to pay off.

    A run that took over a large conversation starts with that conversation in its history (the pages it
    loaded), so Temporal may suggest continuing as new at once; doing so after every step would read the whole
    conversation back for each one. The run goes on until it has grown by `CONTINUE_AFTER_EVENTS` events, or by
    `CONTINUE_AFTER_BYTES` bytes and at least as many as it started with, since `history_at_start` (events and
    bytes), unless its history nears Temporal's hard limit.
    """
    info = workflow.info()
    size = info.get_current_history_size()
    if size >= HISTORY_BYTES_CEILING:
        return True
    if not info.is_continue_as_new_suggested():
        return False
    events_at_start, size_at_start = history_at_start
    grown_events = info.get_current_history_length() - events_at_start
    # A run that took over a conversation of N bytes grows by N more before it hands it on, so reading the
    # conversation back costs each byte a run adds at most once more: linear, however long it goes on.
    return grown_events >= CONTINUE_AFTER_EVENTS or size - size_at_start >= max(CONTINUE_AFTER_BYTES, size_at_start)
