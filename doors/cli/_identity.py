"""Who answers: the identity a command's answers name, from `--as NAME` or `$AGENTS_IDENTITY`.

Every answer the command sends (`agents approve`, `agents deny`, `agents answer`, approvals at the watcher's prompt)
names its caller: the run checks it against the agent's approval rules and writes it into the call's decision
record. Without either setting the answers name the Temporal client's identity (`AgentClient`'s default), which
says which process answered but not who; and only an identity given here filters `agents inbox`, since that default
is nobody a rule would name, so filtering by it would show nothing.

The parser imports this module, so it imports nothing heavier than `_errors`.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._errors import UsageError

__all__ = ('IDENTITY_VARIABLE', 'MAX_IDENTITY_CHARS', 'checked_identity', 'identity_from')

IDENTITY_VARIABLE = 'AGENTS_IDENTITY'
"""The environment variable naming who answers, where `--as` does not."""

MAX_IDENTITY_CHARS = 255
"""The longest identity a run takes (`workflows._event_waits.MAX_CALLER_CHARS`): a longer one is refused here, before
anything connects, rather than by the run."""


def checked_identity(value: str, source: str) -> str:
    """`value`, if it can name who answers.

    Raises:
        UsageError: naming `source` (`--as`, `$AGENTS_IDENTITY`, `--caller`) if `value` is blank or too long.
    """
    if not value.strip():
        raise UsageError(f'{source} is empty: name who answers, e.g. --as alice.')
    if len(value) > MAX_IDENTITY_CHARS:
        raise UsageError(f'{source} is {len(value)} characters long: an identity has at most {MAX_IDENTITY_CHARS}.')
    return value


def identity_from(given: str | None, environ: Mapping[str, str]) -> str | None:
    """The identity `--as` gives, else `$AGENTS_IDENTITY` (if set), checked; `None` if neither names one.

    Raises:
        UsageError: if the one that applies is blank or too long.
    """
    if given is not None:
        return checked_identity(given, '--as')
    if IDENTITY_VARIABLE in environ:
        # Set but empty is refused too: `AGENTS_IDENTITY=$USER_ID` with the variable unset would otherwise answer as
        # the Temporal client's identity without a word.
        return checked_identity(environ[IDENTITY_VARIABLE], f'${IDENTITY_VARIABLE}')
    return None
