"""A small OpenAI-compatible server on a local port, for end-to-end tests over real HTTP.

It answers `POST /v1/chat/completions` with scripted replies, in order (then "ok" once the script runs out),
as JSON or, when the request asks to stream, as a server-sent event stream of chunks split on spaces. It
records every request body and when it arrived.

```python
with LocalOpenAIServer([Reply(status=429, headers={'retry-after': '1'}), Reply('Hello!')]) as server:
    model = OpenAIChatModel('local', provider=OpenAIProvider(base_url=server.base_url, api_key='local'))
```
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ('LocalOpenAIServer', 'Received', 'Reply')


@dataclass
class Reply:
    """One scripted answer."""

    text: str | None = None
    """The assistant's text."""
    tool_calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list[tuple[str, str, dict[str, Any]]])
    """Tool calls as (call id, tool name, arguments)."""
    status: int = 200
    """An error status answers with an OpenAI-style error body instead."""
    headers: dict[str, str] = field(default_factory=dict[str, str])
    """Extra response headers (e.g. `retry-after`)."""


@dataclass
class Received:
    """A request the server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float
    """`time.monotonic()` on arrival."""


class LocalOpenAIServer:
    """Serves scripted Chat Completions on `127.0.0.1`, in a background thread, while inside `with`."""

    def __init__(self, replies: list[Reply] | None = None, *, model: str = 'local-model') -> None:
        self.replies = list(replies or [])
        self.model = model
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(('127.0.0.1', 0), _handler_for(self))
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        """The server's OpenAI-style base URL (ending in `/v1`)."""
        host, port = self._server.server_address[:2]
        return f'http://{host!s}:{port}/v1'

    def __enter__(self) -> LocalOpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def next_reply(self, received: Received) -> Reply:
        with self._lock:
            self.received.append(received)
            return self.replies.pop(0) if self.replies else Reply('ok')

    def completion(self, reply: Reply, number: int) -> dict[str, Any]:
        message: dict[str, Any] = {'role': 'assistant', 'content': reply.text}
        if reply.tool_calls:
            message['tool_calls'] = [_tool_call(call) for call in reply.tool_calls]
        return {
            'id': f'chatcmpl-local-{number}',
            'object': 'chat.completion',
            'created': 1_700_000_000,
            'model': self.model,
            'choices': [{'index': 0, 'message': message, 'finish_reason': _finish(reply)}],
            'usage': _usage(reply),
        }

    def chunks(self, reply: Reply, number: int) -> list[dict[str, Any]]:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {
                'id': f'chatcmpl-local-{number}',
                'object': 'chat.completion.chunk',
                'created': 1_700_000_000,
                'model': self.model,
                'choices': [{'index': 0, 'delta': delta, 'finish_reason': finish}],
            }

        words = (reply.text or '').split(' ')
        result = [chunk({'role': 'assistant', 'content': ''})]
        result += [chunk({'content': word if i == 0 else f' {word}'}) for i, word in enumerate(words) if reply.text]
        for index, call in enumerate(reply.tool_calls):
            result.append(chunk({'tool_calls': [{'index': index, **_tool_call(call)}]}))
        result.append(chunk({}, _finish(reply)))
        result.append({**chunk({}), 'choices': [], 'usage': _usage(reply)})
        return result


def _tool_call(call: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    call_id, name, args = call
    return {'id': call_id, 'type': 'function', 'function': {'name': name, 'arguments': json.dumps(args)}}


def _finish(reply: Reply) -> str:
    return 'tool_calls' if reply.tool_calls else 'stop'


def _usage(reply: Reply) -> dict[str, int]:
    completion = len((reply.text or '').split()) + 10 * len(reply.tool_calls)
    return {'prompt_tokens': 10, 'completion_tokens': completion, 'total_tokens': 10 + completion}


def _handler_for(server: LocalOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get('content-length', 0))
            body = json.loads(self.rfile.read(length) or b'{}')
            received = Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.monotonic())
            reply = server.next_reply(received)
            number = len(server.received)
            if self.path != '/v1/chat/completions':
                self._send_json(404, {'error': {'message': f'Unknown path {self.path}', 'type': 'not_found'}})
            elif reply.status >= 400:
                error = {'message': f'Scripted error {reply.status}', 'type': 'server_error', 'code': None}
                self._send_json(reply.status, {'error': error}, reply.headers)
            elif body.get('stream'):
                self._send_stream(server.chunks(reply, number), reply.headers)
            else:
                self._send_json(200, server.completion(reply, number), reply.headers)

        def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header('content-type', 'application/json')
            self.send_header('content-length', str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _send_stream(self, chunks: list[dict[str, Any]], headers: dict[str, str]) -> None:
            self.send_response(200)
            self.send_header('content-type', 'text/event-stream')
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            for payload in chunks:
                self.wfile.write(f'data: {json.dumps(payload)}\n\n'.encode())
                self.wfile.flush()
            self.wfile.write(b'data: [DONE]\n\n')
            self.wfile.flush()

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

    return Handler
