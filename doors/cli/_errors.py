"""Expected errors, told to a person in one or two lines: what went wrong and what to do.

Every command's failure reaches `explain`, which maps the exceptions a person can cause (no server at the address,
an address that is not HOST:PORT, an unknown workflow or schedule id, a workflow id already running, an unknown tool
call id, a run that failed, a bad agent reference, malformed encryption keys or connection settings) to a message;
anything else is a bug and keeps its traceback. The message never needs the traceback: `--debug` prints it too.

Every command imports this module (for `CommandError`), so the SDK's and the runtime's errors are imported where
they are told apart: an exception of theirs means the command has loaded them already, and a command that parses
its arguments or fails with a `CommandError` never needs them.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from temporalio.client import WorkflowFailureError

__all__ = ('CommandError', 'UsageError', 'cause_of', 'explain', 'failure_line')

START_SERVER_HINT = (
    'Start one with `agents worker --agents module:agent --dev`, or point TEMPORAL_ADDRESS (or --address) at yours.'
)


class CommandError(Exception):
    """An expected failure of a command, with the message a person reads (exit status 1)."""


class UsageError(CommandError):
    """A command line that asks for something malformed, found after parsing (exit status 2, as argparse's own)."""


def _where(args: argparse.Namespace) -> tuple[str, str]:
    """The address and namespace the command used, as far as the command line says (for messages)."""
    from workflows._connection import DEFAULT_ADDRESS, DEFAULT_NAMESPACE

    target: tuple[str, str] | None = getattr(args, 'target', None)
    if target is not None:
        return target
    return getattr(args, 'address', None) or DEFAULT_ADDRESS, getattr(args, 'namespace', None) or DEFAULT_NAMESPACE


def cause_of(exc: BaseException) -> str:
    """The innermost failure message of a workflow, update or activity failure."""
    from temporalio.exceptions import FailureError

    cause: BaseException | None = exc.__cause__ or exc
    while isinstance(cause, FailureError) and cause.__cause__ is not None:
        cause = cause.__cause__
    message = cause.message if isinstance(cause, FailureError) else str(cause)
    return message.strip().splitlines()[0] if message.strip() else type(cause).__name__


def failure_line(exc: WorkflowFailureError) -> str:
    """What a run's failure says first: what failed and why (`UserError: No agent is registered as 'x' ...`).

    A run fails with a headline naming the error's kind (`workflows._failures`); a failure from elsewhere (a run
    terminated or timed out, a workflow of another shape) may say nothing, and then its innermost cause speaks.
    """
    from temporalio.exceptions import FailureError

    failure = exc.cause
    message = (failure.message if isinstance(failure, FailureError) else str(failure)).strip()
    return message.splitlines()[0] if message else cause_of(exc)


def _subject(args: argparse.Namespace) -> str:
    if getattr(args, 'schedule_id', None):
        return f'schedule {args.schedule_id!r}'
    if getattr(args, 'workflow_id', None):
        return f'run {args.workflow_id!r}'
    return 'run'  # a command that has not named its run yet (`agents demo`)


def explain(exc: BaseException, args: argparse.Namespace) -> str | None:
    """The message for an expected error, or `None` for one that is a bug."""
    if isinstance(exc, CommandError):
        return str(exc)
    from temporalio.client import (
        RPCTimeoutOrCancelledError,
        WorkflowFailureError,
        WorkflowQueryFailedError,
        WorkflowQueryRejectedError,
        WorkflowUpdateFailedError,
    )
    from temporalio.exceptions import WorkflowAlreadyStartedError
    from temporalio.service import RPCError, RPCStatusCode

    from agent.exceptions import UserError
    from workflows._dev_server import DevServerNotStarted
    from workflows._encryption import EncryptionKeyError
    from workflows._resume_tokens import TokenRefused

    address, namespace = _where(args)
    subject = _subject(args)
    named_run = subject.startswith('run ')
    match exc:
        case UserError() | TokenRefused():
            return str(exc)
        case DevServerNotStarted():
            return f'{exc}\nTry again; with --port or --ui-port, give ports nothing else listens on.'
        case EncryptionKeyError():
            return (
                f'The encryption keys are malformed: {exc}\nFix AGENT_ENCRYPTION_KEYS (see workflows.EncryptionCodec).'
            )
        case WorkflowAlreadyStartedError():
            return (
                f'A run with workflow id {exc.workflow_id!r} is already running in namespace {namespace!r}: '
                f'`agents status {exc.workflow_id}` (or `agents watch {exc.workflow_id}`) shows it.'
            )
        case RPCError(status=RPCStatusCode.NOT_FOUND) if 'already completed' in exc.message and named_run:
            return (
                f'The {subject} has ended: nothing waits for an answer.\n`agents result {args.workflow_id}` shows how.'
            )
        case RPCError(status=RPCStatusCode.NOT_FOUND):
            hint = (
                '`agents schedule list` lists them.'
                if 'schedule' in subject
                else '`agents inbox` lists runs that wait.'
            )
            return f'No {subject} in namespace {namespace!r} at {address}: {exc.message}\nCheck the id; {hint}'
        case RPCError(status=RPCStatusCode.UNAVAILABLE):
            return f'No Temporal server answers at {address}: {exc.message}\n{START_SERVER_HINT}'
        case RPCError(status=RPCStatusCode.DEADLINE_EXCEEDED) | RPCTimeoutOrCancelledError():
            return (
                f'{subject[:1].upper()}{subject[1:]} did not answer in time: is a worker of its task queue running?\n'
                'Start one with `agents worker --agents module:agent` (and the same --task-queue).'
            )
        case RPCError(status=RPCStatusCode.ALREADY_EXISTS):
            return f'{subject[:1].upper()}{subject[1:]} already exists in namespace {namespace!r}: {exc.message}'
        case RPCError():
            return f'The Temporal server at {address} refused: {exc.message}'
        case WorkflowUpdateFailedError():
            # One line: the run's reason names what is wrong (an unknown id with those still pending, a caller its
            # approval rules do not allow, an approver approving twice).
            return f'The {subject} refused the answer: {cause_of(exc)}'
        case WorkflowFailureError():
            return f'The {subject} failed: {failure_line(exc)}'
        case WorkflowQueryFailedError() | WorkflowQueryRejectedError():
            return f'The {subject} could not answer: {exc}'
        case RuntimeError() if str(exc).startswith('Failed client connect'):
            return f'No Temporal server answers at {address} (namespace {namespace!r}).\n{START_SERVER_HINT}'
        case RuntimeError() if type(exc).__name__ == 'ConfigError':
            # The SDK's environment configuration (config file, profile, TEMPORAL_* variables) is malformed.
            return f'The Temporal connection settings are invalid: {exc}\nCheck TEMPORAL_* variables and --profile.'
        case ValueError() if str(exc).startswith('invalid target URL'):
            # The SDK's own check of the address, made when connecting (`invalid target URL: invalid port number`).
            why = str(exc).removeprefix('invalid target URL: ')
            return f'The Temporal address {address!r} is not HOST:PORT ({why}): give one like localhost:7233.'
        case OSError():
            return str(exc)
        case _:
            return None
