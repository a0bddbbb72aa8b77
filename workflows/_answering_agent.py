"""Which agent answers a conversation's turns, and handing a conversation off to another served agent.

A conversation is one workflow per (agent, conversation id), and the agent it was started with names it for its whole
life: its workflow id, its `AgentName` search attribute, the chat page's address and the inbox entry. A
`send_message` may name another agent in `ConversationMessage.hand_off_to` (Pydantic AI's *programmatic hand-off*,
kept in one conversation): that agent answers the turn and every later one, on the same message history, in the same
workflow. Each turn runs the answering agent as its worker registered it (its model, tools, deferred tools, approval
policy and rules, `deps_type`); the conversation's deps, given at its start, must fit it.

The hand-off is checked in the update's validator (`check_hand_off`), so a hand-off the worker cannot honour is
refused in one line before anything is recorded, never a failed workflow task. The original agent stays served too:
its activities read a conversation back after continue-as-new, which carries the answering agent in
`AgentRunInput.answering_agent`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ApplicationError

from ._registry import registered_names
from ._run_input import validated_deps
from ._types import AgentRunInput

__all__ = ('check_hand_off', 'deps_for')


def check_hand_off(inp: AgentRunInput, to: str) -> None:
    """Refuse a hand-off to `to` unless this worker serves that agent on the run's task queue and the conversation's
    deps fit it.

    Raises:
        ValueError: in one line, saying what was wrong and what to do.
    """
    task_queue = workflow.info().task_queue
    served = registered_names(task_queue)
    if to not in served:
        raise ValueError(
            f'Cannot hand the conversation off to {to!r}: the workers of task queue {task_queue!r} do not serve it '
            f'(they serve {", ".join(served) or "no agent"}). Hand it to one of those, or serve {to!r} there first.'
        )
    try:
        deps_for(inp, to)
    except ApplicationError as exc:
        raise ValueError(f'Cannot hand the conversation off to {to!r}: {exc.message}') from None


def deps_for(inp: AgentRunInput, agent: str) -> Any:
    """The conversation's deps as `agent`'s `deps_type`.

    Raises:
        ApplicationError: a non-retryable `InvalidInput` if the worker does not serve `agent` or the deps do not fit.
    """
    return validated_deps(replace(inp, agent=agent))
