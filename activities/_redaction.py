"""Keys taken out of text before it is written where others can read it (a run's history, the worker's logs).

A provider's error body can echo the key the request carried ("Incorrect API key provided: sk-..."), and that body
becomes the message of the run's failure. Two nets catch a key:

- the actual keys this worker's providers use: the values of the providers' environment variables, and the key
  of every model an activity built or was given (`remember_model_key`);
- the shapes keys come in, for keys the worker never held: `sk-...` (OpenAI, Anthropic), `AIza...` (Google),
  `Bearer <token>`, and `api_key=`/`key=`/`token=` parameters.

No `temporalio` here: the workflow uses it too, and it never needs the SDK.
"""

from __future__ import annotations

import os
import re

__all__ = ('PROVIDER_KEY_VARIABLES', 'REDACTED', 'redact', 'remember_model_key', 'remember_secret')

PROVIDER_KEY_VARIABLES = ('OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY')
"""The environment variables the providers read their keys from."""

REDACTED = '[redacted]'
"""What a key is replaced with."""

_MIN_SECRET_LENGTH = 8  # a shorter value (a placeholder like "x") would redact ordinary words
_MAX_REMEMBERED = 256  # a worker uses a handful of keys; the bound keeps a misuse from growing without end

_remembered: set[str] = set()

_KEY_SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r'(?<![A-Za-z0-9])sk-[A-Za-z0-9_\-]{16,}'), REDACTED),
    (re.compile(r'AIza[0-9A-Za-z_\-]{30,}'), REDACTED),
    (re.compile(r'(?i)\b(Bearer\s+)[A-Za-z0-9._~+/=\-]{8,}'), rf'\1{REDACTED}'),
    (re.compile(r'(?i)([?&;](?:api[_-]?key|key|access[_-]?token|token)=)[^&#\s\'"]+'), rf'\1{REDACTED}'),
    (re.compile(r"""(?i)\b([\w-]*api[_-]?key['"]?\s*[:=]\s*['"]?)[^\s'",;&}]{6,}"""), rf'\1{REDACTED}'),
)


def remember_secret(value: str | None) -> None:
    """Redact `value` from now on (a key this process uses that no environment variable holds)."""
    if value and len(value) >= _MIN_SECRET_LENGTH and len(_remembered) < _MAX_REMEMBERED:
        _remembered.add(value)


def remember_model_key(model: object) -> None:
    """Redact the API key of `model`'s provider from now on, if it has one."""
    key = getattr(getattr(model, 'provider', None), 'api_key', None)
    if isinstance(key, str):
        remember_secret(key)


def _known_secrets() -> list[str]:
    values = {os.environ.get(variable) for variable in PROVIDER_KEY_VARIABLES}
    secrets = {v for v in values if v and len(v) >= _MIN_SECRET_LENGTH} | _remembered
    return sorted(secrets, key=len, reverse=True)  # a key that contains another goes first


def redact(text: str) -> str:
    """`text` with every key this worker knows, and every key-like string, replaced by `REDACTED`."""
    for secret in _known_secrets():
        text = text.replace(secret, REDACTED)
    for pattern, replacement in _KEY_SHAPES:
        text = pattern.sub(replacement, text)
    return text
