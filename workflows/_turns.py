"""The turns of a conversation, and stopping one: `TurnSlot` runs the current turn where `cancel_turn` can reach it.

A turn runs as its own task inside the workflow, so cancelling it cancels exactly that task: the activity in
flight is asked to stop (activities heartbeat, so they learn of it within a beat), a durable wait for approvals
ends and its pending approvals are dropped, and the conversation goes on to its next turn. The conversation keeps
what the turn completed (`completed_messages`): its user message and every finished step, but not a model
response whose tool calls never got results, which no model would accept as history.

Cancelling the workflow itself still cancels the run as a whole: `TurnSlot.run` tells the two apart by whether
the conversation's own task is being cancelled too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from agent._parts import ModelMessage, ModelResponse

from ._types import AgentRunOutput

__all__ = ('Turn', 'TurnSlot', 'completed_messages')

T = TypeVar('T')


@dataclass
class Turn:
    """A `send_message` turn, queued until the conversation takes it."""

    prompt: Any
    """The user prompt."""
    done: bool = False
    """Set once the turn has ended (finished, failed or cancelled)."""
    result: AgentRunOutput | None = None
    """The turn's result, if it finished."""
    error: BaseException | None = None
    """What the update fails with, if the turn failed or was cancelled."""
    update_id: str | None = None
    """The id of the turn's `send_message` update (`None` for a turn that came with the run's start input)."""
    hand_off_to: str | None = None
    """The agent the message hands the conversation off to, from this turn on (`None`: no hand-off)."""


class TurnSlot:
    """Holds the conversation's running turn (at most one) so it can be cancelled."""

    def __init__(self) -> None:
        self.task: asyncio.Task[Any] | None = None
        """The running turn's task, if a turn runs."""
        self.reason: str | None = None
        """Why the last cancelled turn was cancelled, if a reason was given."""
        self._stopping: asyncio.Task[Any] | None = None
        self._cancelled: asyncio.Task[Any] | None = None

    async def run(self, work: Coroutine[Any, Any, T]) -> T | None:
        """Run `work` as the current turn; its result, or `None` if `cancel` stopped it.

        Raises:
            asyncio.CancelledError: if the run itself (the task awaiting this) is cancelled.
        """
        task = asyncio.create_task(work)
        self.task, self.reason = task, None
        try:
            return await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if self._stopping is not task or (current is not None and current.cancelling()):
                raise
            self._cancelled = task
            return None
        finally:
            self.task = None

    def cancel(self, reason: str | None = None) -> asyncio.Task[Any] | None:
        """Cancel the running turn; its task (to wait for with `ended`), or `None` if no turn runs."""
        task = self.task
        if task is None or task.done():
            return None
        self._stopping, self.reason = task, reason
        task.cancel()
        return task

    def ended(self, task: asyncio.Task[Any]) -> bool:
        """Whether the turn of `task` has ended."""
        return self.task is not task

    def was_cancelled(self, task: asyncio.Task[Any]) -> bool:
        """Whether the turn of `task` ended cancelled (it may have finished before the cancellation reached it)."""
        return self._cancelled is task


def completed_messages(messages: list[ModelMessage]) -> list[ModelMessage]:
    """What a cancelled turn completed: `messages` without a last response whose tool calls have no results."""
    if messages and isinstance(messages[-1], ModelResponse) and messages[-1].tool_calls:
        return messages[:-1]
    return list(messages)
