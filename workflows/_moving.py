"""Sending a message again that a conversation refused while it moved to its next workflow run.

A conversation that continues as new refuses `send_message` from the moment its hand-over is due until the next
run takes over, with an `ApplicationError` of type `CONVERSATION_MOVING`: a validator's rejection, so nothing of
the message was recorded. The hand-over takes a workflow task or two once the turns already queued are answered
(and, for a large conversation, the activities that write its history), so the sender sends the message again
after a short back-off, and the next run takes it. Every front door that sends messages does this, so a person
never sees the refusal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from ._types import CONVERSATION_MOVING

__all__ = ('is_moving', 'send_while_moving')

T = TypeVar('T')

FIRST_DELAY = 0.05
"""Seconds before the first time a refused message is sent again; each later wait doubles, up to `MAX_DELAY`."""
MAX_DELAY = 1.0


def is_moving(exc: BaseException) -> bool:
    """Whether `exc` is a conversation's refusal of a message while it moves to its next run."""
    cause = exc.cause if isinstance(exc, WorkflowUpdateFailedError) else None
    return isinstance(cause, ApplicationError) and cause.type == CONVERSATION_MOVING


async def send_while_moving(send: Callable[[int], Awaitable[T]], *, within: float | None = None) -> T:
    """`send(attempt)`, called again after a short back-off for as long as the conversation refuses it as moving.

    Args:
        send: Sends the message (`attempt` counts from 0); a refusal raises its `WorkflowUpdateFailedError`.
        within: Seconds after which a refusal is raised instead of sent again (`None`: no bound).

    Raises:
        WorkflowUpdateFailedError: a refusal of another kind, or a moving one after `within` seconds.
    """
    loop = asyncio.get_running_loop()
    deadline = None if within is None else loop.time() + within
    delay = FIRST_DELAY
    attempt = 0
    while True:
        try:
            return await send(attempt)
        except WorkflowUpdateFailedError as exc:
            if not is_moving(exc) or (deadline is not None and loop.time() + delay > deadline):
                raise
        await asyncio.sleep(delay)
        delay = min(delay * 2, MAX_DELAY)
        attempt += 1
