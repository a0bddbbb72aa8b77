"""The `Host` check that keeps DNS rebinding away from a chat app on a developer's machine.

A page on `evil.example` can make its own name resolve to 127.0.0.1 and then read a local server as if it were
its own origin; the browser still sends `Host: evil.example`. Answering only the names the server is known by
(`localhost`, IP addresses, and the ones configured) defeats that: a rebound request gets 421.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ('HostCheckMiddleware', 'host_allowed')


def _hostname(host: str) -> str:
    """The name in a `Host` header, without the port (`[::1]:8000` -> `::1`)."""
    host = host.strip().lower()
    if host.startswith('['):
        return host[1:].partition(']')[0]
    if host.count(':') == 1:
        return host.partition(':')[0]
    return host


def host_allowed(host: str, allowed_hosts: Iterable[str]) -> bool:
    """Whether a `Host` header names this server: `localhost` (and `*.localhost`), an IP address, or a listed name.

    A listed name starting with `*.` allows its subdomains.
    """
    name = _hostname(host).rstrip('.')
    if not name:
        return False
    if name == 'localhost' or name.endswith('.localhost'):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        pass
    else:
        return True
    for allowed in allowed_hosts:
        allowed = allowed.lower().rstrip('.')
        if allowed.startswith('*.') and name.endswith(allowed[1:]):
            return True
        if name == allowed:
            return True
    return False


class HostCheckMiddleware:
    """ASGI middleware answering 421 to HTTP requests whose `Host` is not allowed (see `host_allowed`)."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed_hosts = tuple(allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope['type'] == 'http':
            host = ''
            for key, value in scope['headers']:
                if key == b'host':
                    host = value.decode('latin-1')
                    break
            if not host_allowed(host, self.allowed_hosts):
                from starlette.responses import PlainTextResponse

                response = PlainTextResponse('Misdirected request: unknown Host.', status_code=421)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
