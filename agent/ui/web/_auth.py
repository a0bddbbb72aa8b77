"""Who is calling: the chat app's pluggable authentication.

An `AuthFunc` takes the request and returns the caller's owner id, or raises `HTTPException(401)`. The owner id
is what conversations belong to, so a caller only ever reaches its own. Plug in whatever the deployment uses
(a session cookie, a proxy's identity header, an OAuth token check); `bearer_token_auth` is the demo's.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from starlette.requests import Request

__all__ = ('AuthFunc', 'bearer_token_auth', 'unauthorized')

AuthFunc: TypeAlias = 'Callable[[Request], str | Awaitable[str]]'
"""Returns the caller's owner id for a request (sync or async), or raises `HTTPException(401)`."""


def unauthorized(detail: str = 'Missing or invalid bearer token.') -> Exception:
    """The 401 exception an `AuthFunc` raises, asking for a bearer token."""
    from starlette.exceptions import HTTPException

    return HTTPException(401, detail, headers={'WWW-Authenticate': 'Bearer'})


def bearer_token_auth(token: str, *, owner: str = 'user') -> Callable[[Request], str]:
    """An `AuthFunc` accepting one shared token from the `Authorization: Bearer <token>` header.

    Everyone holding the token is the same owner: enough for a demo or a single user, not for a team.

    Args:
        token: The token callers must send.
        owner: The owner id of those who send it.
    """
    if not token:
        raise ValueError('bearer_token_auth needs a non-empty token.')
    expected = token.encode()

    def auth(request: Request) -> str:
        scheme, _, given = request.headers.get('authorization', '').partition(' ')
        # Constant-time comparison, so response timing does not reveal how much of a guess was right.
        if scheme.lower() != 'bearer' or not hmac.compare_digest(given.strip().encode(), expected):
            raise unauthorized()
        return owner

    return auth
