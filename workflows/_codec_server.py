"""A codec endpoint for the Temporal Web UI and CLI: shows compressed and encrypted payloads as plain JSON.

Large activity payloads are stored deflated (encoding `json/zlib`, see `workflows._data_converter`), and with
encryption keys configured every payload is encrypted (`binary/encrypted`, see `workflows._encryption`). The Web
UI and `temporal workflow show --codec-endpoint` send the payloads they display to a codec endpoint's `/decode`;
this one decrypts the payloads whose key it holds, inflates `json/zlib` payloads to `json/plain`, and passes
everything else through unchanged (a payload encrypted with a key it lacks stays encrypted). With keys, `/encode`
encrypts what the UI or CLI sends (signal and workflow inputs) with the current key.

It reads its keys as workers do, from `AGENT_ENCRYPTION_KEYS` or `AGENT_ENCRYPTION_KEYS_FILE`; whoever can
reach an endpoint with keys can read every payload, so give it a token and a private address.

```bash
python -m deploy.codec_server --port 8081        # then set the UI's codec endpoint to http://localhost:8081
```

Whoever can reach the endpoint can make it inflate what they send, so it is bounded: a request body is read
only with a `Content-Length` of at most `max_body_bytes`, and payloads are inflated incrementally, never past
`max_inflated_payload_bytes` each nor `max_inflated_request_bytes` together (a zlib bomb gets 413, not the
process's memory). Browsers get CORS answers only on the origins listed (the local dev server's Web UI by
default), never with credentials; with a `token` (or `CODEC_SERVER_TOKEN`), `/decode` and `/encode` also need
`Authorization: Bearer <token>`, which the CLI sends with `--codec-auth`.

The embedded dev server (`worker.py --dev`, the demo) starts one with these defaults, allowing its own Web UI.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hmac
import json
import os
import threading
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast
from urllib.parse import urlsplit

from temporalio.api.common.v1 import Payload

from workflows._data_converter import COMPRESSED_ENCODING
from workflows._encryption import (
    ENCRYPTED_ENCODING,
    KEY_ID_METADATA,
    DecryptionError,
    EncryptionCodec,
    EncryptionKeyError,
)

__all__ = (
    'DEFAULT_ALLOWED_ORIGINS',
    'DEFAULT_MAX_BODY_BYTES',
    'DEFAULT_MAX_INFLATED_PAYLOAD_BYTES',
    'DEFAULT_MAX_INFLATED_REQUEST_BYTES',
    'TOKEN_ENV_VAR',
    'CodecError',
    'CodecServer',
    'PayloadTooLarge',
    'decode_payloads',
    'encode_payloads',
    'main',
)

_PLAIN = base64.b64encode(b'json/plain').decode()
_COMPRESSED = base64.b64encode(COMPRESSED_ENCODING.encode()).decode()
_ENCRYPTED = base64.b64encode(ENCRYPTED_ENCODING.encode()).decode()

# Temporal refuses a payload over 2 MB, and the runtime's JSON deflates to a half or a third of its size, so a
# real payload inflates to a few MB; a request carries the payloads of one event or a page of them.
DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024
"""The largest request body read, in bytes (8 MiB)."""
DEFAULT_MAX_INFLATED_PAYLOAD_BYTES = 8 * 1024 * 1024
"""The most one payload may inflate to, in bytes (8 MiB)."""
DEFAULT_MAX_INFLATED_REQUEST_BYTES = 32 * 1024 * 1024
"""The most the payloads of one request may inflate to together, in bytes (32 MiB)."""
DEFAULT_ALLOWED_ORIGINS = ('http://localhost:8233', 'http://127.0.0.1:8233')
"""The Web UI of `temporal server start-dev` on its default port, by either name a browser may use for it."""
TOKEN_ENV_VAR = 'CODEC_SERVER_TOKEN'
"""The environment variable the command line reads the bearer token from (`--token` overrides it)."""


class CodecError(ValueError):
    """A request body that is not a list of payloads in Temporal's JSON form."""


class PayloadTooLarge(CodecError):
    """Payloads that would inflate past a limit of the endpoint."""


def _payloads_of(body: Any) -> list[Any]:
    if not isinstance(body, dict) or not isinstance(body.get('payloads'), list):
        raise CodecError('Expected a JSON object {"payloads": [...]} with payloads in Temporal\'s JSON form')
    payloads: list[Any] = body['payloads']
    return payloads


def decode_payloads(
    body: Any,
    *,
    max_inflated_payload_bytes: int = DEFAULT_MAX_INFLATED_PAYLOAD_BYTES,
    max_inflated_request_bytes: int = DEFAULT_MAX_INFLATED_REQUEST_BYTES,
    codec: EncryptionCodec | None = None,
) -> dict[str, Any]:
    """The `/decode` answer for a request body `{"payloads": [{"metadata": {...}, "data": "<base64>"}]}`.

    Encrypted payloads are decrypted when `codec` holds their key (and left as they are otherwise), then
    `json/zlib` payloads are inflated.

    Raises:
        PayloadTooLarge: if a payload would inflate past `max_inflated_payload_bytes`, or all of them together
            past `max_inflated_request_bytes`; nothing is inflated past the limit.
        CodecError: if the body is not payloads in Temporal's JSON form, a `json/zlib` payload does not inflate,
            or an encrypted payload with a known key id does not authenticate.
    """
    budget = max_inflated_request_bytes
    decoded: list[Any] = []
    for index, payload in enumerate(_payloads_of(body)):
        if codec is not None:
            payload = _decrypted(payload, index, codec)
        limit = min(max_inflated_payload_bytes, budget)
        data = _compressed_data(payload, index)
        if data is None:
            decoded.append(payload)
            continue
        inflated = _inflate(data, limit, index)
        if inflated is None:
            if limit == max_inflated_payload_bytes:
                raise PayloadTooLarge(
                    f'Payload {index} inflates to more than {limit} bytes, over the limit for one payload '
                    '(--max-inflated-payload-bytes)'
                )
            raise PayloadTooLarge(
                f'The payloads inflate to more than {max_inflated_request_bytes} bytes together, over the limit for '
                'one request (--max-inflated-request-bytes)'
            )
        budget -= len(inflated)
        metadata = {**payload['metadata'], 'encoding': _PLAIN}
        decoded.append({**payload, 'metadata': metadata, 'data': base64.b64encode(inflated).decode()})
    return {'payloads': decoded}


def encode_payloads(body: Any, *, codec: EncryptionCodec | None = None) -> dict[str, Any]:
    """The `/encode` answer: payloads encrypted with `codec`'s current key, or unchanged without a codec.

    Compression is the SDK's choice, made only for activity payloads, so what the UI sends is never deflated.

    Raises:
        CodecError: if the body is not payloads in Temporal's JSON form.
    """
    payloads = _payloads_of(body)
    if codec is None:
        return {'payloads': payloads}
    return {'payloads': [_to_json(codec.encrypt(_from_json(p, index))) for index, p in enumerate(payloads)]}


def _decrypted(payload: Any, index: int, codec: EncryptionCodec) -> Any:
    """`payload` decrypted, or as it is if it is not encrypted or `codec` lacks its key."""
    metadata = cast(dict[str, Any], payload).get('metadata') if isinstance(payload, dict) else None
    if not isinstance(metadata, dict) or cast(dict[str, Any], metadata).get('encoding') != _ENCRYPTED:
        return payload
    proto = _from_json(payload, index)
    if proto.metadata.get(KEY_ID_METADATA, b'').decode(errors='replace') not in codec.key_ids:
        return payload  # a key this endpoint does not hold: the operator sees the payload still encrypted
    try:
        return _to_json(codec.decrypt(proto))
    except DecryptionError as exc:
        raise CodecError(f'Payload {index}: {exc}') from None


def _from_json(payload: Any, index: int) -> Payload:
    """A payload in Temporal's JSON form (`metadata` values and `data` in base64) as a protobuf message."""
    if not isinstance(payload, dict):
        raise CodecError(f'Payload {index} is not a JSON object')
    fields = cast(dict[str, Any], payload)
    metadata = fields.get('metadata') or {}
    if not isinstance(metadata, dict):
        raise CodecError(f'Payload {index} has metadata that is not a JSON object')
    try:
        return Payload(
            metadata={
                str(k): base64.b64decode(str(v), validate=True) for k, v in cast(dict[str, Any], metadata).items()
            },
            data=base64.b64decode(str(fields.get('data') or ''), validate=True),
        )
    except binascii.Error as exc:
        raise CodecError(f"Payload {index} is not in Temporal's JSON form (base64 metadata and data): {exc}") from None


def _to_json(payload: Payload) -> dict[str, Any]:
    metadata = {key: base64.b64encode(value).decode() for key, value in payload.metadata.items()}
    return {'metadata': metadata, 'data': base64.b64encode(payload.data).decode()}


def _compressed_data(payload: Any, index: int) -> bytes | None:
    """The deflated bytes of a `json/zlib` payload, or `None` for a payload of another encoding."""
    if not isinstance(payload, dict):
        raise CodecError(f'Payload {index} is not a JSON object')
    metadata = cast(dict[str, Any], payload).get('metadata') or {}
    if not isinstance(metadata, dict) or cast(dict[str, Any], metadata).get('encoding') != _COMPRESSED:
        return None
    try:
        return base64.b64decode(str(cast(dict[str, Any], payload).get('data', '')), validate=True)
    except binascii.Error as exc:
        raise CodecError(f'Payload {index} says {COMPRESSED_ENCODING} but its data does not inflate: {exc}') from exc


def _inflate(data: bytes, limit: int, index: int) -> bytes | None:
    """`data` inflated, or `None` if it inflates to more than `limit` bytes (found without inflating more)."""
    inflater = zlib.decompressobj()
    try:
        inflated = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise CodecError(f'Payload {index} says {COMPRESSED_ENCODING} but its data does not inflate: {exc}') from exc
    if len(inflated) > limit:
        return None
    if not inflater.eof:
        raise CodecError(f'Payload {index} says {COMPRESSED_ENCODING} but its data does not inflate: it is truncated')
    return inflated


def _origins(origins: Iterable[str]) -> frozenset[str]:
    """`origins` as browsers send them (`scheme://host[:port]`, lower case), or `'*'` for any."""
    normalized: set[str] = set()
    for origin in origins:
        value = origin.strip().rstrip('/').lower()
        parts = urlsplit(value)
        if value != '*' and (parts.scheme not in ('http', 'https') or not parts.netloc or parts.path):
            raise ValueError(f'{origin!r} is not an origin: use scheme://host[:port], e.g. http://localhost:8233')
        normalized.add(value)
    return frozenset(normalized)


@dataclass(frozen=True)
class _Settings:
    max_body_bytes: int
    max_inflated_payload_bytes: int
    max_inflated_request_bytes: int
    allowed_origins: frozenset[str]
    token: bytes | None
    codec: EncryptionCodec | None


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], settings: _Settings) -> None:
        super().__init__(address, _Handler)
        self.settings = settings


class _Handler(BaseHTTPRequestHandler):
    server_version = 'agent-codec/1'
    # A client that sends less body than it announced holds a thread only this long.
    timeout = 30

    @property
    def _settings(self) -> _Settings:
        return cast(_Server, self.server).settings

    def _cors(self) -> None:
        # The Web UI calls the endpoint from the browser, on another origin. Only listed origins get an answer,
        # and never `Allow-Credentials`: the endpoint takes no cookies, its token travels in a header.
        allowed = self._settings.allowed_origins
        origin = (self.headers.get('Origin') or '').lower()
        self.send_header('Vary', 'Origin')
        if '*' in allowed:
            self.send_header('Access-Control-Allow-Origin', '*')
        elif origin in allowed:
            self.send_header('Access-Control-Allow-Origin', origin)
        else:
            return
        self.send_header('Access-Control-Allow-Methods', 'POST, OPTIONS')
        self.send_header('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization')

    def _reply(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self._cors()
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_OPTIONS(self) -> None:
        # Browsers send the preflight without credentials, so it needs no token.
        self.send_response(200)
        self._cors()
        self.send_header('Content-Length', '0')
        self.end_headers()

    def do_POST(self) -> None:
        if not self._authorized():
            error = 'Send the endpoint\'s token as "Authorization: Bearer <token>"'
            self._reply(401, {'error': error}, {'WWW-Authenticate': 'Bearer'})
            return
        path = self.path.rstrip('/')
        if not path.endswith(('/decode', '/encode')):
            self._reply(404, {'error': f'Unknown path {self.path!r}: use /decode or /encode'})
            return
        length = self._body_length()
        if length is None:
            return
        try:
            raw = self.rfile.read(length)
        except TimeoutError:
            return
        settings = self._settings
        try:
            body = json.loads(raw or b'null')
            if path.endswith('/encode'):
                answer = encode_payloads(body, codec=settings.codec)
            else:
                answer = decode_payloads(
                    body,
                    max_inflated_payload_bytes=settings.max_inflated_payload_bytes,
                    max_inflated_request_bytes=settings.max_inflated_request_bytes,
                    codec=settings.codec,
                )
        except PayloadTooLarge as exc:
            self._reply(413, {'error': str(exc)})
            return
        except (json.JSONDecodeError, RecursionError, CodecError) as exc:
            self._reply(400, {'error': str(exc)})
            return
        self._reply(200, answer)

    def _authorized(self) -> bool:
        token = self._settings.token
        if token is None:
            return True
        scheme, _, given = (self.headers.get('Authorization') or '').partition(' ')
        return scheme.lower() == 'bearer' and hmac.compare_digest(given.strip().encode(), token)

    def _body_length(self) -> int | None:
        """The announced body length, or `None` after refusing the request for it."""
        limit = self._settings.max_body_bytes
        announced = self.headers.get('Content-Length')
        if announced is None:
            self._reply(411, {'error': f'Send the body with a Content-Length of at most {limit} bytes'})
            return None
        if not (announced.isascii() and announced.strip().isdigit()):
            self._reply(400, {'error': f'Content-Length {announced!r} is not a number of bytes'})
            return None
        length = int(announced)
        if length > limit:
            self._reply(
                413, {'error': f'Request body of {length} bytes is over the limit of {limit} bytes (--max-body-bytes)'}
            )
            return None
        return length

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the UI polls the endpoint for every payload it shows


class CodecServer:
    """The codec endpoint on a background thread; `url` is what to give the UI (`--ui-codec-endpoint`).

    Args:
        host: The address to listen on.
        port: The port to listen on (0 for a free one).
        max_body_bytes: The largest request body read; a longer one gets 413 unread.
        max_inflated_payload_bytes: The most one `json/zlib` payload may inflate to (413 past it).
        max_inflated_request_bytes: The most the payloads of one request may inflate to together (413 past it).
        allowed_origins: The browser origins (`scheme://host[:port]`) that get CORS answers; `'*'` for any.
        token: If set, `/decode` and `/encode` need `Authorization: Bearer <token>` (401 otherwise).
        codec: The encryption keys: `/decode` decrypts payloads encrypted with any of them, `/encode` encrypts
            with the current one. Without it, encrypted payloads pass through `/decode` as they are.

    Raises:
        ValueError: for an allowed origin that is not `'*'` nor `scheme://host[:port]`.
    """

    def __init__(
        self,
        host: str = '127.0.0.1',
        port: int = 0,
        *,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        max_inflated_payload_bytes: int = DEFAULT_MAX_INFLATED_PAYLOAD_BYTES,
        max_inflated_request_bytes: int = DEFAULT_MAX_INFLATED_REQUEST_BYTES,
        allowed_origins: Iterable[str] = DEFAULT_ALLOWED_ORIGINS,
        token: str | None = None,
        codec: EncryptionCodec | None = None,
    ) -> None:
        settings = _Settings(
            max_body_bytes=max_body_bytes,
            max_inflated_payload_bytes=max_inflated_payload_bytes,
            max_inflated_request_bytes=max_inflated_request_bytes,
            allowed_origins=_origins(allowed_origins),
            token=token.encode() if token else None,
            codec=codec,
        )
        self._server = _Server((host, port), settings)
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
    """`python -m deploy.codec_server` (or `agents codec`): serve until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--host', default='127.0.0.1', help='address to listen on (default 127.0.0.1)')
    parser.add_argument('--port', type=int, default=8081, help='port to listen on (default 8081)')
    parser.add_argument(
        '--allow-origin',
        action='append',
        dest='origins',
        metavar='ORIGIN',
        help='a browser origin (scheme://host:port) of the Web UI, repeatable; "*" for any '
        f'(default {" and ".join(DEFAULT_ALLOWED_ORIGINS)})',
    )
    parser.add_argument(
        '--token',
        default=os.environ.get(TOKEN_ENV_VAR),
        help=f'require "Authorization: Bearer TOKEN" on /decode and /encode (default ${TOKEN_ENV_VAR}, unset: none)',
    )
    for flag, default, what in (
        ('--max-body-bytes', DEFAULT_MAX_BODY_BYTES, 'largest request body read'),
        ('--max-inflated-payload-bytes', DEFAULT_MAX_INFLATED_PAYLOAD_BYTES, 'most one payload may inflate to'),
        ('--max-inflated-request-bytes', DEFAULT_MAX_INFLATED_REQUEST_BYTES, 'most one request may inflate to'),
    ):
        parser.add_argument(flag, type=int, default=default, help=f'the {what} (default {default})')
    args = parser.parse_args(argv)
    try:
        codec = EncryptionCodec.from_env()
    except EncryptionKeyError as exc:
        parser.exit(1, f'{parser.prog}: {exc}\n')
    server = CodecServer(
        args.host,
        args.port,
        max_body_bytes=args.max_body_bytes,
        max_inflated_payload_bytes=args.max_inflated_payload_bytes,
        max_inflated_request_bytes=args.max_inflated_request_bytes,
        allowed_origins=args.origins or DEFAULT_ALLOWED_ORIGINS,
        token=args.token,
        codec=codec,
    )
    keys = f', decrypting with keys {", ".join(codec.key_ids)}' if codec else ''
    print(f'Codec endpoint on {server.url}{keys}', flush=True)
    server.serve_forever()
