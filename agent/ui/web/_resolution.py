"""The body of `POST /api/external-events/{token}`: the answer to a wait for an external event, or why it fails.

`{"results": {...}}` resolves the wait (for `RequestInput`, the JSON form of `DeferredToolResults`); `{"fail":
"reason"}` ends it without an answer (the model is told the reason). Exactly one of the two.
"""

from __future__ import annotations

import json
from typing import Any, cast

__all__ = ('BadResolution', 'parse_resolution')

_SHAPE = 'Send {"results": {...}} to resolve the wait, or {"fail": "reason"} to end it without an answer.'


class BadResolution(ValueError):
    """The body is not a resolution; the message says what is wrong and what to send (the app answers 400)."""


def parse_resolution(body: bytes) -> tuple[Any, str | None]:
    """The answer and the failure reason (one of them is `None`) a resolution's body carries.

    Raises:
        BadResolution: The body is not JSON, or not an object with exactly one of `results` and `fail`.
    """
    try:
        data: object = json.loads(body)
    except json.JSONDecodeError as e:
        raise BadResolution(f'The body is not JSON ({e}). {_SHAPE}') from None
    if not isinstance(data, dict):
        raise BadResolution(f'The body is not a JSON object. {_SHAPE}')
    fields = cast('dict[str, Any]', data)
    unknown = sorted(set(fields) - {'results', 'fail'})
    if unknown or len(fields) != 1:
        what = f'unknown field(s) {", ".join(map(repr, unknown))}' if unknown else f'{len(fields)} fields'
        raise BadResolution(f'The body has {what}. {_SHAPE}')
    if 'fail' in fields:
        reason = fields['fail']
        if not isinstance(reason, str) or not reason.strip():
            raise BadResolution(f'"fail" must be the reason the wait fails, as a non-empty string. {_SHAPE}')
        return None, reason
    return fields['results'], None
