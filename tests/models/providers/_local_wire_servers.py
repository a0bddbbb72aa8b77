"""Local Anthropic Messages and Gemini API servers, for end-to-end runs over real HTTP in each provider's format.

Like `LocalOpenAIServer`: they answer with scripted replies, in order (then "ok" once the script runs out), and record
every request. They serve the unstreamed endpoints, `POST /v1/messages` and
`POST /v1beta/models/<model>:generateContent`; any other request gets a 404 naming it, so a test that needs more sees
why.

```python
with LocalAnthropicServer([Reply(tool_calls=[('call_1', 'add', {'a': 2, 'b': 3})]), Reply('5')]) as server:
    model = AnthropicModel('claude-sonnet-4-5', provider=AnthropicProvider(base_url=server.base_url, api_key='local'))
```
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ._local_server import Received, Reply

__all__ = ('LocalAnthropicServer', 'LocalGeminiServer')


class _ScriptedServer:
    """Serves one JSON endpoint with scripted replies on `127.0.0.1`, in a background thread, while inside `with`."""

    endpoint: re.Pattern[str]
    """The path it answers."""

    def __init__(self, replies: list[Reply] | None = None) -> None:
        self.replies = list(replies or [])
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(('127.0.0.1', 0), _handler_for(self))
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def origin(self) -> str:
        host, port = self._server.server_address[:2]
        return f'http://{host!s}:{port}'

    def __enter__(self) -> _ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def next_reply(self, received: Received) -> tuple[Reply, int]:
        with self._lock:
            self.received.append(received)
            return (self.replies.pop(0) if self.replies else Reply('ok')), len(self.received)

    def answer(self, reply: Reply, number: int, received: Received) -> dict[str, Any]:
        """The response body of a successful `reply`, the `number`th request."""
        raise NotImplementedError

    def error(self, reply: Reply) -> dict[str, Any]:
        """The response body of a `reply` with an error status."""
        raise NotImplementedError


class LocalAnthropicServer(_ScriptedServer):
    """The Messages API: `base_url` is what `ANTHROPIC_BASE_URL` or `AnthropicProvider(base_url=...)` takes."""

    endpoint = re.compile(r'/v1/messages')

    @property
    def base_url(self) -> str:
        return self.origin

    def __enter__(self) -> LocalAnthropicServer:
        super().__enter__()
        return self

    def answer(self, reply: Reply, number: int, received: Received) -> dict[str, Any]:
        content: list[dict[str, Any]] = [{'type': 'text', 'text': reply.text}] if reply.text else []
        content += [
            {'type': 'tool_use', 'id': call_id, 'name': name, 'input': args} for call_id, name, args in reply.tool_calls
        ]
        return {
            'id': f'msg_local_{number}',
            'type': 'message',
            'role': 'assistant',
            'model': received.body.get('model'),
            'content': content,
            'stop_reason': 'tool_use' if reply.tool_calls else 'end_turn',
            'stop_sequence': None,
            'usage': {'input_tokens': 10, 'output_tokens': _output_tokens(reply)},
        }

    def error(self, reply: Reply) -> dict[str, Any]:
        return {'type': 'error', 'error': {'type': 'api_error', 'message': f'Scripted error {reply.status}'}}


class LocalGeminiServer(_ScriptedServer):
    """The Gemini API: `base_url` (ending in `/v1beta`) is what `GoogleProvider(base_url=...)` takes."""

    endpoint = re.compile(r'/v1beta/models/[^/:]+:generateContent')

    @property
    def base_url(self) -> str:
        return f'{self.origin}/v1beta'

    def __enter__(self) -> LocalGeminiServer:
        super().__enter__()
        return self

    def answer(self, reply: Reply, number: int, received: Received) -> dict[str, Any]:
        parts: list[dict[str, Any]] = [{'text': reply.text}] if reply.text else []
        parts += [
            {'functionCall': {'id': call_id, 'name': name, 'args': args}} for call_id, name, args in reply.tool_calls
        ]
        model = received.path.rsplit('/', 1)[-1].split(':')[0]
        output = _output_tokens(reply)
        return {
            'candidates': [{'content': {'role': 'model', 'parts': parts}, 'finishReason': 'STOP', 'index': 0}],
            'usageMetadata': {'promptTokenCount': 10, 'candidatesTokenCount': output, 'totalTokenCount': 10 + output},
            'modelVersion': model,
            'responseId': f'local-{number}',
        }

    def error(self, reply: Reply) -> dict[str, Any]:
        return {'error': {'code': reply.status, 'message': f'Scripted error {reply.status}', 'status': 'INTERNAL'}}


def _output_tokens(reply: Reply) -> int:
    return len((reply.text or '').split()) + 10 * len(reply.tool_calls)


def _handler_for(server: _ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get('content-length', 0))
            body = json.loads(self.rfile.read(length) or b'{}')
            received = Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.monotonic())
            if not server.endpoint.fullmatch(self.path):
                self._send_json(404, {'error': {'message': f'This local server does not serve {self.path}'}})
                return
            reply, number = server.next_reply(received)
            if reply.status >= 400:
                self._send_json(reply.status, server.error(reply), reply.headers)
            else:
                self._send_json(200, server.answer(reply, number, received), reply.headers)

        def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header('content-type', 'application/json')
            self.send_header('content-length', str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

    return Handler
