"""Messages stored once per worker, so model-request activity inputs carry references instead of the history.

Each model request needs the whole conversation. Sending it in full to every activity makes workflow
history grow with the square of the steps (a 200-step run with 5 KB tool results would pass Temporal's
50 MB limit long before the end). Instead the workflow names every message by a content hash and sends
only the messages it has not sent before in this run; the worker keeps the messages it has seen. If an
activity lands on a worker that lacks some of them (a restart, another worker), it says so, and the
workflow sends that request again with every message in full. History therefore grows linearly.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any

import pydantic

from agent._parts import ModelMessage

__all__ = ('MessageCache', 'message_hash', 'prefix_key', 'worker_message_cache')

_MESSAGE_ADAPTER: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(ModelMessage)


def message_hash(message: ModelMessage) -> str:
    """A content hash naming a message (the same on every worker and on replay)."""
    return hashlib.sha256(_MESSAGE_ADAPTER.dump_json(message)).hexdigest()[:32]


def prefix_key(previous: str | None, keys: list[str]) -> str:
    """Names a conversation prefix: the previous prefix extended by `keys` (so each request adds O(1) data)."""
    digest = hashlib.sha256((previous or '').encode())
    for key in keys:
        digest.update(key.encode())
    return digest.hexdigest()[:32]


class MessageCache:
    """A bounded, least-recently-used store of messages by hash."""

    def __init__(self, max_messages: int = 50_000) -> None:
        self.max_messages = max_messages
        self._messages: OrderedDict[str, ModelMessage] = OrderedDict()
        self._prefixes: OrderedDict[str, list[str]] = OrderedDict()

    def add(self, key: str, message: ModelMessage) -> None:
        """Remember a message."""
        self._messages[key] = message
        self._messages.move_to_end(key)
        while len(self._messages) > self.max_messages:
            self._messages.popitem(last=False)

    def clear(self) -> None:
        """Forget every message and prefix."""
        self._messages.clear()
        self._prefixes.clear()

    def extend_prefix(self, previous: str | None, keys: list[str]) -> tuple[str, list[str]] | None:
        """The key and message keys of `previous` extended by `keys`, remembered; `None` if `previous` is unknown."""
        base: list[str] = []
        if previous is not None:
            known = self._prefixes.get(previous)
            if known is None:
                return None
            base = known
        full = [*base, *keys]
        key = prefix_key(previous, keys)
        self._prefixes[key] = full
        self._prefixes.move_to_end(key)
        while len(self._prefixes) > self.max_messages // 10:
            self._prefixes.popitem(last=False)
        return key, full

    def resolve(self, keys: list[str], included: dict[str, ModelMessage]) -> list[ModelMessage] | None:
        """The messages named by `keys` (from `included` or the cache), or `None` if any is unknown here."""
        for key, message in included.items():
            self.add(key, message)
        resolved: list[ModelMessage] = []
        for key in keys:
            message = self._messages.get(key)
            if message is None:
                return None
            self._messages.move_to_end(key)
            resolved.append(message)
        return resolved


worker_message_cache = MessageCache()
"""The store of this worker process."""
