"""Checks of the `AgentWorkflow` input beyond its types, and of the small inputs of its handlers.

`workflows._door` turns what a client sent into the runtime's types; this module checks what the types cannot
say (a positive timeout, an owner that fits a search attribute, deps the agent can take). A bad start fails the
run at once with what was wrong (`invalid_input`), never its workflow task.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pydantic
from temporalio import workflow
from temporalio.exceptions import ApplicationError

from agent._deferred import DeferredToolResults
from agent.exceptions import UserError

from ._data_converter import type_adapter
from ._door import InvalidInput, parse_one, validate_json_value
from ._durable_agent import DurableAgent
from ._event_waits import MAX_CALLER_CHARS
from ._registry import get_durable_agent, registered_names
from ._types import AgentRunInput, Caller, CancelTurn, WaitForTurn

__all__ = (
    'INPUT_HINT',
    'MAX_OWNER_LENGTH',
    'RUN_INPUT',
    'caller_input',
    'cancel_request',
    'check_input',
    'deferred_resolution',
    'invalid_input',
    'registered_agent',
    'validated_deps',
    'wait_request',
)

_RESOLVE_INPUT = 'The resolve_deferred_tools input'

RUN_INPUT = 'The AgentWorkflow input'
"""How messages name the run's input."""
INPUT_HINT = (
    ' Start AgentWorkflow with one JSON object such as {"agent": "<registered name>", "prompt": "..."}; '
    'docs/reference.md lists every field.'
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
    for name, value in (
        ('max_tool_calls_in_flight', inp.max_tool_calls_in_flight),
        ('max_tool_calls_per_response', inp.max_tool_calls_per_response),
    ):
        if value is not None and value < 1:
            raise InvalidInput(
                f"{RUN_INPUT} is invalid: {name} must be at least 1, got {value} (leave it out for the agent's own)"
            )
    if inp.answering_agent is not None and not inp.conversation:
        raise InvalidInput(
            f'{RUN_INPUT} is invalid: answering_agent is for conversations ("conversation": true); run the agent '
            'itself instead'
        )
    owner = inp.owner
    if owner is not None and not (owner.strip() and len(owner) <= MAX_OWNER_LENGTH):
        shown = owner if len(owner) <= 40 else f'{owner[:40]}...'
        raise InvalidInput(
            f'{RUN_INPUT} is invalid: owner must be a non-blank user id of at most {MAX_OWNER_LENGTH} characters, '
            f'got {shown!r}'
        )


def registered_agent(inp: AgentRunInput) -> DurableAgent:
    """The agent the input names, as this worker registered it for the run's task queue.

    Raises:
        ApplicationError: a non-retryable `InvalidInput` naming the agent and the registered ones.
    """
    task_queue = workflow.info().task_queue
    try:
        return get_durable_agent(inp.agent, task_queue)
    except UserError:
        known = ', '.join(registered_names(task_queue)) or '(none)'
        raise invalid_input(
            f"No agent is registered as {inp.agent!r} on task queue {task_queue!r} (the input's agent field). "
            f'Registered agents: {known}'
        ) from None


def validated_deps(inp: AgentRunInput) -> Any:
    """The run's deps as the agent's `deps_type` (checked once, before anything runs).

    Raises:
        ApplicationError: a non-retryable `InvalidInput` naming what does not fit, or the agent the input names if
            no such agent is registered.
    """
    agent = registered_agent(inp).agent
    if agent.deps_type is type(None):
        return inp.deps
    if inp.deps is None:
        _check_deps_optional(inp.agent, agent.deps_type)
        return None
    try:
        # The worker checked at start-up that the type serializes (see `serializable_deps_adapter`).
        return validate_json_value(inp.deps, agent.deps_type, RUN_INPUT, 'deps.')
    except InvalidInput as exc:
        raise invalid_input(f'{exc}. The agent {inp.agent!r} takes deps of type {agent.deps_type!r}.') from None


def _check_deps_optional(agent: str, deps_type: Any) -> None:
    """Refuse a run that gave no deps when the agent's `deps_type` cannot do without them.

    A type that takes `null` or can be built from `{}` (every field has a default) can: the run gets `None`, as an
    in-process run without deps does. Any other type would only fail later, in the first function reading
    `ctx.deps`.

    Raises:
        ApplicationError: a non-retryable `InvalidInput` naming `deps` and the fields that have no default.
    """
    adapter = type_adapter(deps_type)
    try:
        adapter.validate_json(b'null')
        return
    except pydantic.ValidationError:
        pass
    try:
        adapter.validate_json(b'{}')
        return
    except pydantic.ValidationError as exc:
        missing = ['.'.join(str(part) for part in error['loc']) for error in exc.errors() if error['type'] == 'missing']
    needs = f', whose field(s) {", ".join(missing)} have no default' if missing else ''
    raise invalid_input(
        f'{RUN_INPUT} is invalid: deps: required, but missing. The agent {agent!r} takes deps of type '
        f'{deps_type!r}{needs}.'
    )


def cancel_request(args: Sequence[Any]) -> CancelTurn:
    """The `cancel_turn` input: nothing, or one `CancelTurn` object.

    Raises:
        InvalidInput: if it is something else.
    """
    return parse_one(args, CancelTurn, 'The cancel_turn input') if args else CancelTurn()


def wait_request(args: Sequence[Any]) -> WaitForTurn:
    """The `wait_for_turn` input: nothing, or one `WaitForTurn` object.

    Raises:
        InvalidInput: if it is something else.
    """
    return parse_one(args, WaitForTurn, 'The wait_for_turn input') if args else WaitForTurn()


def deferred_resolution(args: Sequence[Any]) -> tuple[DeferredToolResults, Caller]:
    """The `resolve_deferred_tools` input: the results, and who sends them if the second argument says.

    Raises:
        InvalidInput: if either is malformed, or more arguments arrived.
    """
    if len(args) > 2:
        raise InvalidInput(
            f'{_RESOLVE_INPUT} is one DeferredToolResults object, optionally followed by a caller object such as '
            f'{{"identity": "alice"}}; {len(args)} arguments arrived'
        )
    caller = caller_input(args[1:], 'The resolve_deferred_tools caller') if len(args) == 2 else Caller()
    return parse_one(args[:1], DeferredToolResults, _RESOLVE_INPUT), caller


def caller_input(args: Sequence[Any], what: str) -> Caller:
    """The `Caller` argument of a handler, named `what` in errors.

    Raises:
        InvalidInput: if it is malformed or names no one (or too long a name) as its identity.
    """
    caller = parse_one(args, Caller, what)
    identity = caller.identity
    if identity is not None and not (identity.strip() and len(identity) <= MAX_CALLER_CHARS):
        raise InvalidInput(f'{what} must name someone as its identity, in at most {MAX_CALLER_CHARS} characters')
    return caller
