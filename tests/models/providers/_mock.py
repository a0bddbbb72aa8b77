"""A scripted provider behind `httpx2.MockTransport`, replaying fixture files in the providers' wire formats.

A fixture (`fixtures/<provider>/<name>.json`) lists the exchanges of a test in order:

```json
{"exchanges": [{"request": {...}, "status": 200, "headers": {...}, "response": {...} or "sse": "name.sse"}]}
```

`request` is the exact JSON body the model must send; `response` the JSON body answered, or `sse` a
server-sent event transcript file answered as `text/event-stream`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

FIXTURES = Path(__file__).parent / 'fixtures'


@dataclass
class Sent:
    """A request the model sent."""

    method: str
    url: str
    headers: dict[str, str]
    body: Any
    timeout: dict[str, Any]


@dataclass
class ScriptedProvider:
    """Answers each request with the next exchange of a fixture, recording what was sent."""

    exchanges: list[dict[str, Any]]
    directory: Path
    sent: list[Sent] = field(default_factory=list[Sent])

    @classmethod
    def load(cls, fixture: str) -> ScriptedProvider:
        path = FIXTURES / f'{fixture}.json'
        return cls(json.loads(path.read_text())['exchanges'], path.parent)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content) if request.content else None
        self.sent.append(
            Sent(request.method, str(request.url), dict(request.headers), body, request.extensions.get('timeout', {}))
        )
        assert len(self.sent) <= len(self.exchanges), f'unexpected extra request: {body}'
        exchange = self.exchanges[len(self.sent) - 1]
        headers = dict(exchange.get('headers', {}))
        status = exchange.get('status', 200)
        if 'sse' in exchange:
            transcript = (self.directory / exchange['sse']).read_bytes()
            headers.setdefault('content-type', 'text/event-stream')
            return httpx2.Response(status, headers=headers, content=transcript)
        return httpx2.Response(status, headers=headers, json=exchange.get('response'))

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self.handle))

    @property
    def bodies(self) -> list[Any]:
        """The bodies sent so far."""
        return [sent.body for sent in self.sent]

    @property
    def expected_bodies(self) -> list[Any]:
        """The bodies the fixture expects, for the requests sent so far."""
        return [exchange['request'] for exchange in self.exchanges[: len(self.sent)]]

    def assert_all_sent_as_expected(self) -> None:
        assert len(self.sent) == len(self.exchanges), f'{len(self.sent)} of {len(self.exchanges)} requests sent'
        assert self.bodies == self.expected_bodies
