"""A small HTTP server on the loopback interface, for tests of fetching (started and stopped by each test)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

PAGE = (
    b'<html><head><title>Loopback page</title><script>var secret = 1;</script></head>'
    b'<body><h1>Welcome</h1><p>Served from <b>this machine</b>. See <a href="/docs">the docs</a>.</p></body></html>'
)


@dataclass
class WebServer:
    """The running server: its base URL, the paths requested so far, and the posted bodies."""

    base_url: str
    requested: list[str] = field(default_factory=list[str])
    posted: list[bytes] = field(default_factory=list[bytes])
    release: threading.Event = field(default_factory=threading.Event)


def _handler(server: WebServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            server.requested.append(self.path)
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            if url.path == '/redirect':
                self.send_response(302)
                self.send_header('Location', query['to'][0])
                self.end_headers()
            elif url.path == '/big':
                self._send(b'<html><body><p>' + b'x' * 5000 + b'</p></body></html>', 'text/html')
            elif url.path == '/notes.txt':
                self._send(b'plain notes', 'text/plain; charset=utf-8')
            elif url.path == '/hang':
                server.release.wait(10)  # answers only when the test is over
                self._send(b'late', 'text/plain')
            else:
                self._send(PAGE, 'text/html; charset=utf-8')

        def do_POST(self) -> None:
            length = int(self.headers.get('Content-Length', '0'))
            server.posted.append(self.rfile.read(length))
            self._send(b'{"ok": true}', 'application/json')

        def _send(self, body: bytes, content_type: str) -> None:
            self.send_response(200)
            self.send_header('Content-Type', content_type)
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextmanager
def web_server(host: str = '127.0.0.1') -> Iterator[WebServer]:
    """Serve on a loopback address (a free port) for the duration of the `with` block."""
    state = WebServer(base_url='')
    httpd = ThreadingHTTPServer((host, 0), _handler(state))
    httpd.daemon_threads = True
    state.base_url = f'http://{host}:{httpd.server_address[1]}'
    thread = threading.Thread(target=httpd.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)
