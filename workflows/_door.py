"""Validation at the door: what a client sends the workflow is checked by the runtime, never by the SDK alone.

Temporal decodes a workflow's arguments before any workflow code runs, and a payload that does not decode into
the declared type fails the *workflow task*, which the server retries forever: one malformed start, signal or
update would leave the run stuck. So `AgentWorkflow`'s run, signal and update handlers take their arguments as
plain JSON values (`*args`), and this module turns them into the runtime's types, raising `InvalidInput` with
what was wrong: which field, what was expected, what arrived. The workflow then fails the run (a bad start),
rejects the update before it reaches history, or records the rejected part of a signal in its status.

Payloads that are not JSON at all fail in the data converter with `PayloadDecodeError`, which the workflow lists
among its failure exception types, so that too fails the run instead of the task.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any, TypeVar

import pydantic
import pydantic_core

from agent._deferred import DeferredToolApprovalResult, DeferredToolCallResult, DeferredToolResults

from ._data_converter import type_adapter
from ._types import Rejection

__all__ = ('InvalidInput', 'parse_deferred_results', 'parse_one', 'validate_json_value', 'warm_up')

T = TypeVar('T')

_MAX_ERRORS_SHOWN = 5
_MAX_VALUE_SHOWN = 80


class InvalidInput(ValueError):
    """Something a client sent the workflow that cannot be used; the message says what and why."""


def _json_type(value: Any) -> str:
    if value is None:
        return 'null'
    if isinstance(value, bool):
        return 'a boolean'
    if isinstance(value, int | float):
        return 'a number'
    if isinstance(value, str):
        return 'a string'
    if isinstance(value, list | tuple):
        return 'a JSON array'
    if isinstance(value, dict):
        return 'a JSON object'
    if isinstance(value, bytes | bytearray):
        return 'binary data'
    return type(value).__name__


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_VALUE_SHOWN else text[: _MAX_VALUE_SHOWN - 3] + '...'


def describe_errors(exc: pydantic.ValidationError, prefix: str = '') -> str:
    """Pydantic's errors as `field: problem, got value` lines a person can act on (the first few)."""
    problems: dict[str, str] = {}
    for error in exc.errors(include_url=False):
        # Union members each report a failure; the path without their tags is what names the field.
        location = '.'.join(str(part) for part in error['loc'] if not _is_union_tag(part))
        where = f'{prefix}{location}' if location else prefix.rstrip('.')
        if where in problems:
            continue
        got = error.get('input')
        problems[where] = (
            f'{error["msg"]}, got {_shown(got)}' if error['type'] != 'missing' else 'required, but missing'
        )
    lines = [f'{where}: {detail}' if where else detail for where, detail in list(problems.items())[:_MAX_ERRORS_SHOWN]]
    more = len(problems) - len(lines)
    return '; '.join(lines) + (f' (and {more} more)' if more > 0 else '')


_TYPE_NAMES = frozenset({'str', 'int', 'float', 'bool', 'bytes', 'none', 'dict', 'list'})


def _is_union_tag(part: Any) -> bool:
    # Pydantic names the union member it tried (`str`, `list[...]`, `function-after[...]`, a class name, a tag
    # like `user-prompt`) in the path; field names are snake_case and look like none of these.
    if not isinstance(part, str):
        return False
    return part in _TYPE_NAMES or part[:1].isupper() or '[' in part or '-' in part


def parse_one(args: Sequence[Any], target: type[T], what: str, *, forbid_unknown: bool = True) -> T:
    """The single JSON object in `args` as a `target` (a dataclass), or `InvalidInput` saying what is wrong.

    `what` names the input in messages (e.g. 'the AgentWorkflow input'). Top-level fields `target` does not have
    are refused (a misspelt field would otherwise be ignored in silence) unless `forbid_unknown` is false.
    """
    if len(args) != 1:
        raise InvalidInput(f'{what} must be one JSON object; {len(args)} arguments arrived')
    value = args[0]
    if not isinstance(value, dict):
        raise InvalidInput(f'{what} must be a JSON object; got {_json_type(value)}: {_shown(value)}')
    if forbid_unknown:
        known = {f.name for f in fields(target)}  # pyright: ignore[reportArgumentType]
        unknown = sorted(str(key) for key in value if key not in known)
        if unknown:
            names = ', '.join(map(repr, unknown))
            raise InvalidInput(f'{what} has unknown field(s) {names}; the fields are: {", ".join(sorted(known))}')
    return validate_json_value(value, target, what)


def validate_json_value(value: Any, target: Any, what: str, prefix: str = '') -> Any:
    """`value` (decoded JSON) validated as `target`, through JSON so every type reads it as it would from the wire."""
    try:
        return type_adapter(target).validate_json(pydantic_core.to_json(value))
    except pydantic.ValidationError as exc:
        raise InvalidInput(f'{what} is invalid: {describe_errors(exc, prefix)}') from None


_RESULT_FIELDS = ('approvals', 'calls', 'metadata', 'answered_by')


def parse_deferred_results(args: Sequence[Any], handler: str) -> tuple[DeferredToolResults, list[Rejection]]:
    """Split a delivery of deferred tool results into the entries that are valid and rejections for the rest.

    Each tool call's entry is validated on its own, so one bad entry does not cost the others.

    Raises:
        InvalidInput: if the delivery as a whole is unusable (not one JSON object, or unknown fields).
    """
    if len(args) != 1 or not isinstance(args[0], dict):
        parse_one(args, DeferredToolResults, f'The {handler} input')  # raises with the reason
    raw: dict[str, Any] = args[0]
    unknown = sorted(str(key) for key in raw if key not in _RESULT_FIELDS)
    if unknown:
        raise InvalidInput(
            f'The {handler} input has unknown field(s) {", ".join(map(repr, unknown))}; '
            f'the fields are: {", ".join(_RESULT_FIELDS)}'
        )
    results = DeferredToolResults()
    rejected: list[Rejection] = []
    targets: dict[str, Any] = {
        'approvals': bool | DeferredToolApprovalResult,
        'calls': DeferredToolCallResult,
        'metadata': dict[str, Any],
        'answered_by': str,
    }
    for name, target in targets.items():
        entries = raw.get(name)
        if entries is None:
            continue
        if not isinstance(entries, dict):
            rejected.append(
                Rejection(handler, f'{name} must be a JSON object of tool call ids; got {_json_type(entries)}')
            )
            continue
        valid: dict[str, Any] = getattr(results, name)
        for call_id, entry in entries.items():
            try:
                valid[str(call_id)] = validate_json_value(entry, target, f'{name}[{call_id!r}]')
            except InvalidInput as exc:
                rejected.append(Rejection(handler, str(exc), str(call_id)))
    return results, rejected


def warm_up() -> None:
    """Build, before a worker polls, the validators of what its runs decode: what clients send (the run's input,
    signals and updates, each entry of deferred results) and what activities and child runs return.

    A validator is built once per process, on first use, and building one for a type as large as `AgentRunInput`
    takes long enough on a busy machine that, done inside a run's first workflow task, it trips the SDK's deadlock
    detector (2 s): the task fails and is retried, and a query waiting on it fails too.
    """
    from activities._types import CallToolOutput, ModelRequestOutput

    from ._children import ChildPending
    from ._types import (
        AgentRunInput,
        AgentRunOutput,
        Caller,
        CancelTurn,
        ConversationMessage,
        ExternalEventResolution,
        MessagePage,
        WaitForTurn,
    )

    for target in (
        AgentRunInput,
        AgentRunOutput,
        ConversationMessage,
        CancelTurn,
        WaitForTurn,
        MessagePage,
        Caller,
        ExternalEventResolution,
        ChildPending,
        DeferredToolResults,
        bool | DeferredToolApprovalResult,
        DeferredToolCallResult,
        dict[str, Any],
        ModelRequestOutput,
        CallToolOutput,
        Any,
    ):
        type_adapter(target)
