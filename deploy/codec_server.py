"""A codec endpoint for the Temporal Web UI and CLI: shows compressed activity payloads as plain JSON.

Large activity payloads are stored deflated (encoding `json/zlib`, see `workflows._data_converter`). The Web UI
and `temporal workflow show --codec-endpoint` send the payloads they display to a codec endpoint's `/decode`;
this one inflates `json/zlib` payloads to `json/plain` and passes everything else through unchanged.

```bash
python -m deploy.codec_server --port 8081        # then set the UI's codec endpoint to http://localhost:8081
```

The embedded dev server (`worker.py --dev`, the demo) starts one and points its Web UI at it.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import threading
import zlib
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from workflows._data_converter import COMPRESSED_ENCODING

__all__ = ('CodecError', 'CodecServer', 'decode_payloads', 'encode_payloads', 'main')

_PLAIN = base64.b64encode(b'json/plain').decode()
_COMPRESSED = base64.b64encode(COMPRESSED_ENCODING.encode()).decode()
_MAX_BODY = 64 * 1024 * 1024


class CodecError(ValueError):
    """A request body that is not a list of payloads in Temporal's JSON form."""


def _payloads_of(body: Any) -> list[Any]:
    if not isinstance(body, dict) or not isinstance(body.get('payloads'), list):
        raise CodecError('Expected a JSON object {"payloads": [...]} with payloads in Temporal\'s JSON form')
    payloads: list[Any] = body['payloads']
    return payloads


def decode_payloads(body: Any) -> dict[str, Any]:
    """The `/decode` answer for a request body `{"payloads": [{"metadata": {...}, "data": "<base64>"}]}`."""
    return {'payloads': [_decode(payload, index) for index, payload in enumerate(_payloads_of(body))]}


def encode_payloads(body: Any) -> dict[str, Any]:
    """The `/encode` answer: payloads unchanged (encoding is the SDK's job; the UI's own go on as they are)."""
    return {'payloads': _payloads_of(body)}


def _decode(payload: Any, index: int) -> Any:
    if not isinstance(payload, dict):
        raise CodecError(f'Payload {index} is not a JSON object')
    metadata = payload.get('metadata') or {}
    if not isinstance(metadata, dict) or metadata.get('encoding') != _COMPRESSED:
        return payload
    try:
        data = zlib.decompress(base64.b64decode(str(payload.get('data', '')), validate=True))
    except (binascii.Error, zlib.error) as exc:
        raise CodecError(f'Payload {index} says {COMPRESSED_ENCODING} but its data does not inflate: {exc}') from exc
    return {**payload, 'metadata': {**metadata, 'encoding': _PLAIN}, 'data': base64.b64encode(data).decode()}


class _Handler(BaseHTTPRequestHandler):
    server_version = 'agent-codec/1'

    def _cors(self) -> None:
        # The Web UI calls the endpoint from the browser, on another origin.
        self.send_header('Access-Control-Allow-Origin', self.headers.get('Origin') or '*')
        self.send_header('Access-Control-Allow-Credentials', 'true')
        self.send_header('Access-Control-Allow-Methods', 'POST, OPTIONS')
        self.send_header('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization')

    def _reply(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self._cors()
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_OPTIONS(self) -> None:
        self.send_response(200)
        self._cors()
        self.send_header('Content-Length', '0')
        self.end_headers()

    def do_POST(self) -> None:
        path = self.path.rstrip('/')
        if not path.endswith(('/decode', '/encode')):
            self._reply(404, {'error': f'Unknown path {self.path!r}: use /decode or /encode'})
            return
        length = int(self.headers.get('Content-Length') or 0)
        if length > _MAX_BODY:
            self._reply(413, {'error': f'Request body over {_MAX_BODY} bytes'})
            return
        try:
            body = json.loads(self.rfile.read(length) or b'null')
            answer = decode_payloads(body) if path.endswith('/decode') else encode_payloads(body)
        except (json.JSONDecodeError, CodecError) as exc:
            self._reply(400, {'error': str(exc)})
            return
        self._reply(200, answer)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the UI polls the endpoint for every payload it shows


class CodecServer:
    """The codec endpoint on a background thread; `url` is what to give the UI (`--ui-codec-endpoint`)."""

    def __init__(self, host: str = '127.0.0.1', port: int = 0) -> None:
        self._server = ThreadingHTTPServer((host, port), _Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name='codec-server', daemon=True)

    @property
    def url(self) -> str:
        """The endpoint's base URL."""
        host, port = self._server.server_address[:2]
        return f'http://{host if isinstance(host, str) else host.decode()}:{port}'

    def start(self) -> CodecServer:
        """Serve in the background."""
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve on the calling thread until interrupted."""
        try:
            self._server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            self._server.server_close()

    def close(self) -> None:
        """Stop serving."""
        self._server.shutdown()
        self._server.server_close()


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m deploy.codec_server`: serve until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--host', default='127.0.0.1', help='address to listen on (default 127.0.0.1)')
    parser.add_argument('--port', type=int, default=8081, help='port to listen on (default 8081)')
    args = parser.parse_args(argv)
    server = CodecServer(args.host, args.port)
    print(f'Codec endpoint on {server.url}', flush=True)
    server.serve_forever()


if __name__ == '__main__':
    main()
