"""`Provider`: where a model's HTTP requests go, how they authenticate, and the client that sends them.

A provider is built when its model is built, so a missing API key fails there with a `UserError` naming the
environment variable, not in the middle of a run. Without an explicit `http_client`, requests share one
default client per event loop: connection pools belong to the loop that opened them, and a durable worker
or a test suite may run several loops in one process.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from abc import ABC, abstractmethod
from typing import Any, Generic

import httpx2
from typing_extensions import TypeVar

from agent.exceptions import UserError
from agent.models._http_client import DEFAULT_HTTP_TIMEOUT

__all__ = ('DEFAULT_TIMEOUT', 'Provider', 'default_http_client', 'env_api_key')

DEFAULT_TIMEOUT = httpx2.Timeout(DEFAULT_HTTP_TIMEOUT, connect=5)
"""Model responses can take minutes (long outputs, thinking), while a connection should open quickly."""

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx2.AsyncClient] = weakref.WeakKeyDictionary()


def default_http_client() -> httpx2.AsyncClient:
    """The shared client of the running event loop (a fresh one outside a loop)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return httpx2.AsyncClient(timeout=DEFAULT_TIMEOUT)
    client = _clients.get(loop)
    if client is None or client.is_closed:
        client = _clients[loop] = httpx2.AsyncClient(timeout=DEFAULT_TIMEOUT)
    return client


def env_api_key(api_key: str | None, *variables: str, provider: str) -> str:
    """`api_key`, else the first of `variables` set in the environment.

    Raises:
        UserError: naming the variables, when no key is found.
    """
    if api_key:
        return api_key
    for variable in variables:
        value = os.environ.get(variable)
        if value:
            return value
    names = ' or '.join(f'`{v}`' for v in variables)
    raise UserError(f'No API key for {provider}: set the {names} environment variable, or pass `api_key=`.')


# The client type of a provider, only for annotations (`Provider[Any]`): every provider here speaks plain HTTP.
_ClientT = TypeVar('_ClientT', default=Any, covariant=True)


class Provider(ABC, Generic[_ClientT]):
    """Connection details of a model API: base URL, API key and HTTP client.

    Generic in the client type so annotations written for Pydantic AI (`Provider[AsyncOpenAI]`) keep working;
    our providers send plain HTTP requests and do not use an SDK client.
    """

    def __init__(self, *, base_url: str, api_key: str | None, http_client: httpx2.AsyncClient | None) -> None:
        """Create a provider.

        Args:
            base_url: The API's base URL, without a trailing slash.
            api_key: The key sent with every request, if the API needs one.
            http_client: The client to send requests with; the event loop's shared client by default.
        """
        self._base_url = base_url.rstrip('/')
        self._api_key = api_key
        self._http_client = http_client

    @property
    @abstractmethod
    def name(self) -> str:
        """The provider's name, e.g. `'openai'`, reported as the responses' `provider_name`."""
        raise NotImplementedError

    @abstractmethod
    def auth_headers(self) -> dict[str, str]:
        """The headers that authenticate (and version) a request."""
        raise NotImplementedError

    @property
    def base_url(self) -> str:
        """The API's base URL."""
        return self._base_url

    @property
    def api_key(self) -> str | None:
        """The API key, if any."""
        return self._api_key

    @property
    def http_client(self) -> httpx2.AsyncClient:
        """The client requests are sent with."""
        return self._http_client if self._http_client is not None else default_http_client()

    def url(self, path: str) -> str:
        """The absolute URL of `path` under the base URL."""
        return f'{self._base_url}/{path.lstrip("/")}'

    def __repr__(self) -> str:
        return f'{type(self).__name__}(base_url={self._base_url!r})'
