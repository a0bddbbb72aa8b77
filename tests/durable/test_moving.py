"""`send_while_moving`: a message refused as `ConversationMoving` is sent again, within a bound; others are not.

The conversations' end-to-end cases (a real hand-over) are in `test_conversations` (`AgentClient`) and
`test_chat_moving` (the chat); these pin the loop's rules with a sender that refuses as a workflow would.
"""

from __future__ import annotations

import pytest
from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from workflows._moving import is_moving, send_while_moving
from workflows._types import CONVERSATION_MOVING


def refusal(kind: str | None) -> WorkflowUpdateFailedError:
    """What the client raises for an update the workflow's validator refused with an error of type `kind`."""
    return WorkflowUpdateFailedError(ApplicationError('refused', type=kind))


async def test_a_message_refused_as_moving_is_sent_again_until_it_is_taken():
    attempts: list[int] = []

    async def send(attempt: int) -> str:
        attempts.append(attempt)
        if attempt < 3:
            raise refusal(CONVERSATION_MOVING)
        return 'answered'

    assert await send_while_moving(send) == 'answered'
    assert attempts == [0, 1, 2, 3]


async def test_another_refusal_is_raised_at_once():
    attempts: list[int] = []

    async def send(attempt: int) -> str:
        attempts.append(attempt)
        raise refusal('NotOwner')

    with pytest.raises(WorkflowUpdateFailedError) as raised:
        await send_while_moving(send)
    assert attempts == [0]
    assert not is_moving(raised.value)


async def test_a_conversation_still_moving_after_the_bound_raises_its_refusal():
    attempts: list[int] = []

    async def send(attempt: int) -> str:
        attempts.append(attempt)
        raise refusal(CONVERSATION_MOVING)

    with pytest.raises(WorkflowUpdateFailedError) as raised:
        await send_while_moving(send, within=0.3)
    assert is_moving(raised.value)
    # Backed off (0.05 s, doubling) and never waiting past the bound: after 0.05 + 0.1, a wait of 0.2 would pass it
    # (a busy machine's late wake-ups may give up one attempt sooner).
    assert attempts in ([0, 1, 2], [0, 1])
