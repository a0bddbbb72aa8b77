"""Resume tokens of durable waits: the address of one wait for an external event in one workflow run.

A durable run that waits for an external event (`RequestInput`, `wait_for_external_event`) hands its `ask` a token
that names the wait: the workflow id, the workflow run id and the wait's key in that run (`'<name>.<n>'`, the run's
n-th wait). Whoever holds the token can find the run and resolve the wait through it, by any of the workflow's
doors (see `workflows._event_waits`), as Pydantic AI suggests for engines whose events are addressed by name.

The format is `ev1.` followed by the base64url form (no padding) of the JSON array `[workflow id, run id, key]`:
URL-safe, so it fits a link or a chat button as it is, and opaque by convention only. It holds no secret: it is an
address, and deciding who may resolve a wait is the door's business (Temporal's namespace access for a Temporal
client, the chat app's authentication for its route). Anyone who can see it learns the workflow id and the run id.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import cast

__all__ = ('TOKEN_PREFIX', 'InvalidToken', 'ResumeToken', 'TokenRefused', 'decode_token', 'encode_token')

TOKEN_PREFIX = 'ev1.'
"""What every token of this format starts with (the version of the format)."""

_MAX_TOKEN_CHARS = 4096
"""Longer is no token of ours (a workflow id is at most 1000 characters on a stock server)."""


class TokenRefused(Exception):
    """A resume token could not be resolved: it is malformed, its run has ended, or its wait is not pending.

    The message is one line saying which.
    """

    def __init__(self, message: str, *, type: str | None = None) -> None:
        super().__init__(message)
        self.type = type
        """What kind of refusal: the run's error type (`NotOwner`: another owner's run), `NotFound` when the run
        does not exist or has ended, `None` otherwise."""


class InvalidToken(TokenRefused, ValueError):
    """The string is not a resume token of this format; the message says what is wrong with it."""


@dataclass(frozen=True)
class ResumeToken:
    """What a resume token names."""

    workflow_id: str
    """The workflow whose run waits."""
    run_id: str
    """The workflow run that waits (a run continued as new has another)."""
    key: str
    """The wait in that run: `'<name>.<n>'`."""

    def encode(self) -> str:
        """The token as a string."""
        return encode_token(self.workflow_id, self.run_id, self.key)


def encode_token(workflow_id: str, run_id: str, key: str) -> str:
    """The resume token of wait `key` of run `run_id` of workflow `workflow_id`."""
    data = json.dumps([workflow_id, run_id, key], separators=(',', ':'), ensure_ascii=False).encode()
    return TOKEN_PREFIX + base64.urlsafe_b64encode(data).decode('ascii').rstrip('=')


def decode_token(token: str) -> ResumeToken:
    """What `token` names.

    Raises:
        InvalidToken: `token` is not a resume token of this format (the message says why, in one line).
    """
    if not token.strip():
        raise InvalidToken('The resume token is empty.')
    token = token.strip()
    if len(token) > _MAX_TOKEN_CHARS:
        raise InvalidToken(f'The resume token is {len(token)} characters long; tokens of durable waits are shorter.')
    if not token.startswith(TOKEN_PREFIX):
        raise InvalidToken(
            f'The resume token does not start with {TOKEN_PREFIX!r}: it is not the token of a durable wait '
            '(an in-process wait is resolved with resolve_external_event in its own process).'
        )
    body = token.removeprefix(TOKEN_PREFIX)
    try:
        data = base64.urlsafe_b64decode(body + '=' * (-len(body) % 4))
        if base64.urlsafe_b64encode(data).decode('ascii').rstrip('=') != body:
            raise ValueError('not canonical base64url')  # stray characters the decoder skipped, or padding
        parts: object = json.loads(data.decode())
    except (binascii.Error, ValueError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise InvalidToken(
            f'The resume token is damaged: what follows {TOKEN_PREFIX!r} is not base64url-encoded JSON '
            '(was it cut short or changed when it was copied?).'
        ) from None
    items = cast('list[object]', parts) if isinstance(parts, list) else []
    names = [item for item in items if isinstance(item, str) and item]
    if len(items) != 3 or len(names) != 3:
        raise InvalidToken('The resume token does not name a workflow id, a run id and a wait key.')
    workflow_id, run_id, key = names
    return ResumeToken(workflow_id, run_id, key)
