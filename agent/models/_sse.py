"""Reading a server-sent event stream of JSON payloads.

The event framing is parsed by `httpx2.EventSource`; this adds what every provider stream needs: JSON
decoding, the `[DONE]` sentinel of OpenAI-style streams, and transport failures mid-stream reported as
`ModelAPIError` (retryable by the durable layer) rather than as HTTP client exceptions.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx2

from agent.exceptions import ModelAPIError

__all__ = ('JSONEvent', 'json_events')


@dataclass(frozen=True)
class JSONEvent:
    """One server-sent event with a JSON payload."""

    event: str
    """The event name (`'message'` when the stream does not name its events)."""
    data: Any
    """The decoded payload."""


async def json_events(response: httpx2.Response, *, model_name: str) -> AsyncIterator[JSONEvent]:
    """The JSON events of a streamed response, until the stream ends or sends `[DONE]`.

    Raises:
        ModelAPIError: if the connection fails, the response is not an event stream, or a payload is not JSON.
    """
    try:
        async for sse in httpx2.EventSource(response):
            if not sse.data:
                continue
            if sse.data.strip() == '[DONE]':
                return
            try:
                data = json.loads(sse.data)
            except ValueError as exc:
                raise ModelAPIError(model_name, f'Invalid JSON in a streamed event: {sse.data[:500]!r}') from exc
            yield JSONEvent(sse.event, data)
    except httpx2.HTTPError as exc:
        raise ModelAPIError(model_name, f'The response stream failed: {exc!r}') from exc
