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

__all__ = ('PLAIN_HISTORY_BUDGET', 'Handover', 'load_history')

PLAIN_HISTORY_BUDGET = 512 * 1024
"""Bytes of message JSON continue-as-new carries in its input as they are; a larger history goes by reference."""

_TIMEOUT = timedelta(minutes=2)
_RETRY = RetryPolicy(initial_interval=timedelta(milliseconds=200), maximum_interval=timedelta(seconds=10))


class Handover:
    """How a run hands its conversation to the next run, and what of it the run's history already holds.

    A small conversation travels in the continue-as-new input as it is. A larger one goes by reference: its
    messages are written into this run's history in pages (the inputs of stash activities) and the next run
    reads them back. Writing them takes activities, so a conversation writes them while the turn that made the
    hand-over due still holds its caller (`write`), and then continues as new in the same workflow task as that
    turn's answer (`carry` has nothing left to write): no message can arrive in between and postpone the
    hand-over. Each message is written once: a later write starts where the last one ended.
    """

    def __init__(self, agent_name: str, written: int = 0) -> None:
        self._agent_name = agent_name
        self._written = written

    def rewound(self, kept: int) -> None:
        """Messages from index `kept` on were replaced (a turn after a cancelled one): write them again."""
        self._written = min(self._written, kept)

    def written(self, start: int) -> None:
        """`history[:start]` is in this run's history already (its input, or the pages it loaded)."""
        self._written = start

    async def write(self, history: list[ModelMessage]) -> None:
        """Write the messages of `history` this run's history lacks, if the conversation must go by reference."""
        if self._goes_by_reference(history):
            await self._write_from(history, self._written)

    async def carry(self, history: list[ModelMessage]) -> tuple[list[ModelMessage] | None, HistoryHandoff | None]:
        """How the next run gets `history`: as it is when small, else by reference to this run."""
        if not self._goes_by_reference(history):
            return history, None
        await self._write_from(history, self._written)
        info = workflow.info()
        return None, HistoryHandoff(info.workflow_id, info.run_id, len(history))

    def _goes_by_reference(self, history: list[ModelMessage]) -> bool:
        total = 0
        for message in history:
            total += message_size(message)
            if total > PLAIN_HISTORY_BUDGET:
                return True
        return False

    async def _write_from(self, history: list[ModelMessage], start: int) -> None:
        page: list[ModelMessage] = []
        size, first = 0, start
        for index in range(start, len(history)):
            message_bytes = message_size(history[index])
            if page and size + message_bytes > PAGE_BUDGET:
                await _stash(self._agent_name, page, first)
                page, size, first = [], 0, index
            page.append(history[index])
            size += message_bytes
        if page:
            await _stash(self._agent_name, page, first)
        self._written = len(history)


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
