"""Keeping a run's result under Temporal's payload size limit, with every message still reachable by query.

Temporal refuses a payload over ~2 MB, so a long run (hundreds of tool steps with kilobytes of results each)
cannot return all its new messages in the result. The result keeps the newest messages that fit in
`RESULT_MESSAGES_BUDGET` bytes and counts the ones left out; the `new_messages` query pages through all of them.
"""

from __future__ import annotations

from dataclasses import replace

from activities._handoff import PAGE_BUDGET, message_size, page_of
from agent._parts import ModelMessage

from ._types import AgentRunOutput, MessagePage

__all__ = ('RESULT_MESSAGES_BUDGET', 'fit_result', 'message_page')

RESULT_MESSAGES_BUDGET = PAGE_BUDGET
"""Bytes of message JSON a result or a query reply carries at most (half of Temporal's payload limit)."""


def fit_result(output: AgentRunOutput, budget: int = RESULT_MESSAGES_BUDGET) -> AgentRunOutput:
    """`output` with only the newest messages that fit in `budget` bytes (all of them usually)."""
    messages = output.new_messages
    total, kept = 0, 0
    for message in reversed(messages):
        total += message_size(message)
        if total > budget:
            break
        kept += 1
    if kept == len(messages):
        return output
    return replace(output, new_messages=messages[len(messages) - kept :], earlier_messages_omitted=len(messages) - kept)


def message_page(
    messages: list[ModelMessage], page: MessagePage, budget: int = RESULT_MESSAGES_BUDGET
) -> list[ModelMessage]:
    """Up to `page.limit` messages from `page.offset`, fewer if they would pass `budget` bytes (at least one)."""
    if page.offset < 0 or page.limit < 1:
        raise ValueError(f'Invalid page {page}: offset must be >= 0 and limit >= 1.')
    return page_of(messages[: page.offset + page.limit], page.offset, budget)
