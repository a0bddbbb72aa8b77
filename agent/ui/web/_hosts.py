"""The `Host` check that keeps DNS rebinding away from a chat app on a developer's machine.

A page on `evil.example` can make its own name resolve to 127.0.0.1 and then read a local server as if it were
its own origin; the browser still sends `Host: evil.example`. Answering only the names the server is known by
(`localhost` and its subdomains, IP addresses, and the configured names) defeats that: any other request gets
421, WebSocket connections included (closed with 1008 before they are accepted).

A `Host` header is read strictly: a name with userinfo, a path, a query or a fragment, an unterminated or
non-address bracket, or more than one root dot is refused rather than parsed loosely into a local name.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from agent.exceptions import UserError

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ('HostCheckMiddleware', 'host_allowed', 'host_patterns')

_ANY_HOST = '*'


def _hostname(host: str) -> str | None:
    """The name in a `Host` header, lower-cased, without port and root dot; `None` when it is not a plain host."""
    host = host.strip().lower()
    if not host or any(c in host for c in '@/?#\\ \t'):
        return None
    if host.startswith('['):
        address, sep, rest = host[1:].partition(']')
        if not sep or (rest and not (rest.startswith(':') and rest[1:].isdigit())):
            return None
        try:
            ipaddress.IPv6Address(address)
        except ValueError:
            return None
        return address
    name, sep, port = host.partition(':')
    if sep and not port.isdigit():
        return None  # a second colon (an unbracketed IPv6 address) or a port that is not a number
    if name.endswith('.'):
        name = name[:-1]  # the fully-qualified spelling: one root dot only
    if not name or name.endswith('.'):
        return None
    return name


def _pattern(pattern: str) -> str:
    """A configured host name or `*.domain` pattern, normalized like a `Host` header.

    Raises:
        UserError: The pattern is malformed (it would match nothing, or everything by accident).
    """
    if pattern == _ANY_HOST:
        return pattern
    text = pattern.strip().lower()
    wildcard = text.startswith('*.')
    name = _hostname(text[2:] if wildcard else text)
    if name is None or '*' in name or name.startswith('.'):
        raise UserError(
            f'Invalid `allowed_hosts` pattern {pattern!r}: use a host name (`ui.example.com`), `*.` followed by a '
            "domain for its subdomains (`*.example.com`), or `'*'` for any host."
        )
    return f'*.{name}' if wildcard else name


def host_patterns(allowed_hosts: Iterable[str]) -> tuple[str, ...]:
    """The configured host patterns, normalized and checked (see `_pattern`).

    Raises:
        UserError: A pattern is malformed.
    """
    return tuple(_pattern(pattern) for pattern in allowed_hosts)


def host_allowed(host: str, allowed_hosts: Sequence[str]) -> bool:
    """Whether a `Host` header names this server: `localhost` (and `*.localhost`), an IP address, or a listed name.

    `allowed_hosts` are normalized patterns (`host_patterns`): a name, `*.domain` for its subdomains (not the
    domain itself), or `'*'` for any host.
    """
    if _ANY_HOST in allowed_hosts:
        return True
    name = _hostname(host)
    if name is None:
        return False
    if name == 'localhost' or name.endswith('.localhost'):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        pass
    else:
        return True
    return any(name.endswith(pattern[1:]) if pattern.startswith('*.') else name == pattern for pattern in allowed_hosts)


class HostCheckMiddleware:
    """ASGI middleware refusing requests whose `Host` is not allowed (see `host_allowed`): HTTP gets 421, a
    WebSocket is closed with 1008 before it is accepted."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed_hosts = host_patterns(allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope['type'] in ('http', 'websocket'):
            host = ''
            for key, value in scope['headers']:
                if key == b'host':
                    host = value.decode('latin-1')
                    break
            if not host_allowed(host, self.allowed_hosts):
                if scope['type'] == 'websocket':
                    await send({'type': 'websocket.close', 'code': 1008})
                    return
                from starlette.responses import PlainTextResponse

                # The header is quoted back, so the answer must never be sniffed as markup.
                response = PlainTextResponse(
                    f'Misdirected request: the host {host!r} is not allowed.',
                    status_code=421,
                    headers={'X-Content-Type-Options': 'nosniff'},
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
