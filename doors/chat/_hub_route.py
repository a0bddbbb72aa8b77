"""`turn_events_route`: the chat server's endpoint for the workers' turn events (`POST /internal/turn-events`).

The body is NDJSON, one `TurnEvent` a line, as `HttpPublisher` sends it. The endpoint is internal (workers, not
browsers, call it): it takes a shared token as `Authorization: Bearer <token>`, bounds the body, and answers
204 once the events are in the hub, so a publisher that waits for the answer knows they are. Mount it on the
chat app ahead of the page's files, which take every path routed after them:
`app.router.routes.insert(0, turn_events_route(hub, token))`, in the process whose event loop serves the hub's
readers.
"""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING

import pydantic

from ._hub import TurnEventHub
from ._turn_events import decode_turn_event

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.routing import Route

__all__ = ('DEFAULT_MAX_BATCH_BYTES', 'TURN_EVENTS_PATH', 'turn_events_route')

TURN_EVENTS_PATH = '/internal/turn-events'
"""Where the chat server takes turn events, and where `HttpPublisher` sends them."""

DEFAULT_MAX_BATCH_BYTES = 8_000_000
"""The default bound on one request's body (a batch); the publisher's batches stay well under it."""


def turn_events_route(
    hub: TurnEventHub, token: str, *, path: str = TURN_EVENTS_PATH, max_body_bytes: int = DEFAULT_MAX_BATCH_BYTES
) -> Route:
    """A Starlette route taking the workers' turn events into `hub`; mount it on the chat app.

    Answers 401 without the token, 413 for a body over `max_body_bytes`, 400 (taking none of the batch) when a
    line is not a turn event, and 204 otherwise.

    Args:
        hub: Where the events go.
        token: The shared token the workers send (the same as `HttpPublisher`'s).
        path: The route's path.
        max_body_bytes: The largest body taken.
    """
    from starlette.responses import PlainTextResponse, Response
    from starlette.routing import Route

    if not token:
        raise ValueError('turn_events_route needs a non-empty token.')
    expected = token.encode()

    async def receive(request: Request) -> Response:
        scheme, _, given = request.headers.get('authorization', '').partition(' ')
        # Constant-time comparison, so response timing does not reveal how much of a guess was right.
        if scheme.lower() != 'bearer' or not hmac.compare_digest(given.strip().encode(), expected):
            return PlainTextResponse('Missing or invalid token.', status_code=401)
        too_large = PlainTextResponse(f'A batch may take at most {max_body_bytes} bytes.', status_code=413)
        declared = request.headers.get('content-length', '')
        if declared.isdigit() and int(declared) > max_body_bytes:
            return too_large
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > max_body_bytes:
                return too_large
        lines = [line for line in bytes(body).splitlines() if line.strip()]
        try:
            records = [decode_turn_event(line) for line in lines]
        except pydantic.ValidationError as exc:
            return PlainTextResponse(f'Not a turn event: {exc.errors(include_url=False)[0]["msg"]}', status_code=400)
        for line, record in zip(lines, records, strict=True):
            hub.ingest(record, size=len(line))
        return Response(status_code=204)

    return Route(path, receive, methods=['POST'])
