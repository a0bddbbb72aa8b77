"""Checks of the `AgentWorkflow` input beyond its types, and of the small inputs of its handlers.

`workflows._door` turns what a client sent into the runtime's types; this module checks what the types cannot
say (a positive timeout, an owner that fits a search attribute, deps the agent can take). A bad start fails the
run at once with what was wrong (`invalid_input`), never its workflow task.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ApplicationError

from ._door import InvalidInput, parse_one, validate_json_value
from ._registry import get_durable_agent
from ._types import AgentRunInput, CancelTurn

__all__ = (
    'INPUT_HINT',
    'MAX_OWNER_LENGTH',
    'RUN_INPUT',
    'cancel_request',
    'check_input',
    'invalid_input',
    'validated_deps',
)

RUN_INPUT = 'The AgentWorkflow input'
"""How messages name the run's input."""
INPUT_HINT = (
    ' Start AgentWorkflow with one JSON object such as {"agent": "<registered name>", "prompt": "..."}; '
    'the README\'s "Durable runs" section lists every field.'
)
"""What a failed start adds to its message."""

MAX_OWNER_LENGTH = 255
"""Characters an input's `owner` may have (it is a user id, recorded as a Keyword search attribute)."""


def invalid_input(message: str) -> ApplicationError:
    """The non-retryable failure of a run whose input cannot be used."""
    return ApplicationError(message, type='InvalidInput', non_retryable=True)


def check_input(inp: AgentRunInput) -> None:
    """Check what the input's types do not.

    Raises:
        InvalidInput: naming the field, what it must be, and what arrived.
    """
    if inp.idle_timeout_seconds is not None and not inp.idle_timeout_seconds > 0:
        raise InvalidInput(
            f'{RUN_INPUT} is invalid: idle_timeout_seconds must be positive, got {inp.idle_timeout_seconds}'
        )
    if inp.max_turns_per_run is not None and inp.max_turns_per_run < 1:
        raise InvalidInput(f'{RUN_INPUT} is invalid: max_turns_per_run must be at least 1, got {inp.max_turns_per_run}')
    owner = inp.owner
    if owner is not None and not (owner.strip() and len(owner) <= MAX_OWNER_LENGTH):
        shown = owner if len(owner) <= 40 else f'{owner[:40]}...'
        raise InvalidInput(
            f'{RUN_INPUT} is invalid: owner must be a non-blank user id of at most {MAX_OWNER_LENGTH} characters, '
            f'got {shown!r}'
        )


def validated_deps(inp: AgentRunInput) -> Any:
    """The run's deps as the agent's `deps_type` (checked once, before anything runs).

    Raises:
        ApplicationError: a non-retryable `InvalidInput` naming what does not fit.
    """
    agent = get_durable_agent(inp.agent, workflow.info().task_queue).agent
    if agent.deps_type is type(None) or inp.deps is None:
        return inp.deps
    try:
        # The worker checked at start-up that the type serializes (see `serializable_deps_adapter`).
        return validate_json_value(inp.deps, agent.deps_type, RUN_INPUT, 'deps.')
    except InvalidInput as exc:
        raise invalid_input(f'{exc}. The agent {inp.agent!r} takes deps of type {agent.deps_type!r}.') from None


def cancel_request(args: Sequence[Any]) -> CancelTurn:
    """The `cancel_turn` input: nothing, or one `CancelTurn` object.

    Raises:
        InvalidInput: if it is something else.
    """
    return parse_one(args, CancelTurn, 'The cancel_turn input') if args else CancelTurn()
