"""Continue-as-new without an oversized input: a large history travels by reference (see `activities._handoff`)."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ApplicationError

from activities._handoff import PAGE_BUDGET, HistoryPage, LoadHistoryInput, StashHistoryInput, message_size
from activities._names import history_load_activity_name, history_stash_activity_name
from agent._parts import ModelMessage

from ._types import HistoryHandoff

__all__ = ('PLAIN_HISTORY_BUDGET', 'carry_history', 'load_history')

PLAIN_HISTORY_BUDGET = 512 * 1024
"""Bytes of message JSON continue-as-new carries in its input as they are; a larger history goes by reference."""

_TIMEOUT = timedelta(minutes=2)
_RETRY = RetryPolicy(initial_interval=timedelta(milliseconds=200), maximum_interval=timedelta(seconds=10))


async def carry_history(
    agent_name: str, history: list[ModelMessage], start: int
) -> tuple[list[ModelMessage] | None, HistoryHandoff | None]:
    """How the next run gets `history`: as it is when small, else by reference to this run.

    `history[:start]` is already in this run's history (its input, or pages it loaded); the rest is written
    into it now, in pages, as the inputs of stash activities.
    """
    if sum(message_size(message) for message in history) <= PLAIN_HISTORY_BUDGET:
        return history, None
    page: list[ModelMessage] = []
    size, first = 0, start
    for index in range(start, len(history)):
        message_bytes = message_size(history[index])
        if page and size + message_bytes > PAGE_BUDGET:
            await _stash(agent_name, page, first)
            page, size, first = [], 0, index
        page.append(history[index])
        size += message_bytes
    if page:
        await _stash(agent_name, page, first)
    info = workflow.info()
    return None, HistoryHandoff(info.workflow_id, info.run_id, len(history))


async def _stash(agent_name: str, messages: list[ModelMessage], start: int) -> None:
    await workflow.execute_activity(
        history_stash_activity_name(agent_name),
        StashHistoryInput(messages, start),
        start_to_close_timeout=_TIMEOUT,
        retry_policy=_RETRY,
    )


async def load_history(agent_name: str, handoff: HistoryHandoff) -> list[ModelMessage]:
    """The conversation the run named by `handoff` ended with, read a page at a time.

    Raises:
        ApplicationError: non-retryable, if that run's history does not hold the conversation it announced.
    """
    messages: list[ModelMessage] = []
    while len(messages) < handoff.messages:
        page: HistoryPage = await workflow.execute_activity(
            history_load_activity_name(agent_name),
            LoadHistoryInput(handoff.workflow_id, handoff.run_id, len(messages)),
            result_type=HistoryPage,
            start_to_close_timeout=_TIMEOUT,
            retry_policy=_RETRY,
        )
        if page.total != handoff.messages or not page.messages:
            raise ApplicationError(
                f'The conversation of run {handoff.run_id} has {page.total} messages in its history, not the '
                f'{handoff.messages} it handed over; it cannot be continued.',
                type='HistoryHandoffMismatch',
                non_retryable=True,
            )
        messages.extend(page.messages)
    return messages
