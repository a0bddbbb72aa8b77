"""A listening socket for serving the chat app with uvicorn, bound before the server starts."""

from __future__ import annotations

import socket

__all__ = ('tcp_listener',)


def tcp_listener(host: str, port: int, backlog: int = 128) -> socket.socket:
    """A TCP socket bound to `(host, port)` (`port` 0 picks a free one) and listening.

    The protocol is spelled out (`IPPROTO_TCP`) because asyncio turns Nagle's algorithm off (`TCP_NODELAY`) only on
    sockets whose `proto` says TCP, and `socket.create_server` leaves it 0: with Nagle on, the first chunk of a
    stream on a kept-alive connection waits for the client's delayed ACK of the response headers (40 ms on Linux).
    """
    family = socket.AF_INET6 if ':' in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(backlog)
    except BaseException:
        listener.close()
        raise
    return listener
