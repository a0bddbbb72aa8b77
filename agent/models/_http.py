"""Sending a model request over HTTP and turning failures into the runtime's errors.

Every failure leaves here as one of two exceptions, which the durable layer knows how to retry:

- `ModelHTTPError` for an error status, with the decoded body and the `retry-after` delay the provider
  asked for (seconds, or an HTTP date; OpenAI's `retry-after-ms` too);
- `ModelAPIError` for everything else: connection failures, timeouts, a body that is not JSON, an error
  reported in the middle of a stream.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

import httpx2

from agent._env import now_utc
from agent.exceptions import ModelAPIError, ModelHTTPError

__all__ = ('HTTPCall', 'RetryDelayReader', 'http_error', 'open_stream', 'post_json', 'retry_after_seconds')

RetryDelayReader = Callable[[object], float | None]
"""Reads a retry delay from a decoded error body, for providers that put it there instead of in a header."""


@dataclass(kw_only=True)
class HTTPCall:
    """One request to a provider: where to send which JSON body."""

    url: str
    """The absolute URL."""
    body: dict[str, Any]
    """The JSON body."""
    headers: dict[str, str] = field(default_factory=dict[str, str])
    """Authentication and extra headers."""
    timeout: float | None = None
    """Seconds before giving up; the client's own timeout when `None`."""

    def request_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for `httpx2.AsyncClient.post`/`stream`."""
        kwargs: dict[str, Any] = {'json': self.body, 'headers': self.headers}
        if self.timeout is not None:
            kwargs['timeout'] = self.timeout
        return kwargs


async def post_json(
    client: httpx2.AsyncClient, call: HTTPCall, *, model_name: str, body_retry_delay: RetryDelayReader | None = None
) -> dict[str, Any]:
    """POST `call` and return the JSON object answered.

    Raises:
        ModelHTTPError: for an error status.
        ModelAPIError: for a transport failure or a body that is not a JSON object.
    """
    try:
        response = await client.post(call.url, **call.request_kwargs())
    except httpx2.HTTPError as exc:
        raise ModelAPIError(model_name, f'Request to {call.url} failed: {exc!r}') from exc
    if response.status_code >= 400:
        raise http_error(
            response.status_code,
            response.headers,
            response.content,
            model_name=model_name,
            body_retry_delay=body_retry_delay,
        )
    try:
        data = response.json()
    except ValueError as exc:
        raise ModelAPIError(model_name, f'Invalid JSON in the response: {response.text[:500]!r}') from exc
    if not isinstance(data, dict):
        raise ModelAPIError(model_name, f'Expected a JSON object in the response, got {type(data).__name__}')
    return data  # pyright: ignore[reportUnknownVariableType]


@asynccontextmanager
async def open_stream(
    client: httpx2.AsyncClient, call: HTTPCall, *, model_name: str, body_retry_delay: RetryDelayReader | None = None
) -> AsyncGenerator[httpx2.Response]:
    """POST `call` and yield the response once its status is known to be a success, before the body is read.

    Raises:
        ModelHTTPError: for an error status (the error body is read first).
        ModelAPIError: for a transport failure while connecting.
    """
    try:
        async with client.stream('POST', call.url, **call.request_kwargs()) as response:
            if response.status_code >= 400:
                content = await response.aread()
                raise http_error(
                    response.status_code,
                    response.headers,
                    content,
                    model_name=model_name,
                    body_retry_delay=body_retry_delay,
                )
            yield response
    except httpx2.HTTPError as exc:
        raise ModelAPIError(model_name, f'Request to {call.url} failed: {exc!r}') from exc


def http_error(
    status_code: int,
    headers: Mapping[str, str],
    content: bytes,
    *,
    model_name: str,
    body_retry_delay: RetryDelayReader | None = None,
) -> ModelHTTPError:
    """The `ModelHTTPError` for an error response (body decoded as JSON when it is JSON).

    The delay comes from the `retry-after` headers, else from the body when `body_retry_delay` can read one.
    """
    body: object
    try:
        body = json.loads(content) if content else None
    except ValueError:
        body = content.decode(errors='replace')
    retry_after = retry_after_seconds(headers)
    if retry_after is None and body_retry_delay is not None:
        retry_after = body_retry_delay(body)
    return ModelHTTPError(status_code, model_name, body, retry_after=retry_after)


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The delay a response asks for before retrying, from `retry-after-ms` or `retry-after`."""
    millis = headers.get('retry-after-ms')
    if millis is not None:
        try:
            return max(float(millis) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get('retry-after')
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max((when - now_utc()).total_seconds(), 0.0)
