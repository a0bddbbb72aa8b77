"""What a worker remembers between activities, so model-request inputs carry references instead of data.

Each model request needs the whole conversation, its tool definitions, and the tool results that came back
since the last request. Sending all of it to every activity makes workflow history grow with the square of
the steps (a 200-step run with 5 KB tool results would pass Temporal's 50 MB limit long before the end) and
repeats every tool result twice. Instead:

- Messages are named by a content hash; the workflow sends each message once per run and then names the
  conversation by a rolling prefix key (`prefix_key`), so each request adds O(1) data.
- Tool results are kept by the worker that produced them, under the hash of their JSON (`content_key`); the
  workflow sends the tool-return messages with those contents left out and names them instead.
- Request parameters (tool definitions, output mode) are named by hash once sent.
- A model response is kept by the worker that received it, under the hash the workflow will name it by.

If an activity lands on a worker that lacks anything named (a restart, another worker), the worker rebuilds
what it lacks from the run's own history (`activities._history_recovery`); only if that fails does it answer
`messages_missing`, and the workflow sends that request again with everything in full. History therefore
grows linearly, and nothing depends on the store for correctness.
"""

from __future__ import annotations

import hashlib
import sys
from collections import OrderedDict
from typing import Any, Generic, TypeVar

import pydantic
import pydantic_core

from agent._parts import ModelMessage
from agent.models import ModelRequestParameters

__all__ = (
    'LruStore',
    'WorkerStore',
    'content_key',
    'message_hash',
    'message_hash_and_size',
    'parameters_hash',
    'prefix_key',
    'worker_store',
)

_MESSAGE_ADAPTER: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(ModelMessage)
_PARAMETERS_ADAPTER: pydantic.TypeAdapter[ModelRequestParameters] = pydantic.TypeAdapter(ModelRequestParameters)

MIN_REFERENCED_CONTENT = 128
"""Tool results shorter than this (in JSON bytes) are sent inline: a reference would save nothing."""

K = TypeVar('K')
V = TypeVar('V')


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def message_hash(message: ModelMessage) -> str:
    """A content hash naming a message (the same on every worker and on replay)."""
    return _digest(_MESSAGE_ADAPTER.dump_json(message))


def message_hash_and_size(message: ModelMessage) -> tuple[str, int]:
    """`message_hash`, and the bytes of the message's JSON."""
    data = _MESSAGE_ADAPTER.dump_json(message)
    return _digest(data), len(data)


def parameters_hash(parameters: ModelRequestParameters) -> str:
    """A content hash naming a request's parameters."""
    return _digest(_PARAMETERS_ADAPTER.dump_json(parameters))


def content_key(data: bytes) -> str:
    """A content hash naming a tool result by its JSON."""
    return _digest(data)


def prefix_key(previous: str | None, keys: list[str]) -> str:
    """Names a conversation prefix: the previous prefix extended by `keys` (so each request adds O(1) data)."""
    digest = hashlib.sha256((previous or '').encode())
    for key in keys:
        digest.update(key.encode())
    return digest.hexdigest()[:32]


class LruStore(Generic[K, V]):
    """A least-recently-used map bounded by entry count and by a total size."""

    def __init__(self, max_entries: int, max_size: int | None = None) -> None:
        self.max_entries = max_entries
        self.max_size = max_size
        self.size = 0
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()

    def put(self, key: K, value: V, size: int = 0) -> None:
        """Remember `value` (of `size` units towards `max_size`)."""
        old = self._items.pop(key, None)
        if old is not None:
            self.size -= old[1]
        self._items[key] = (value, size)
        self.size += size
        while len(self._items) > self.max_entries or (self.max_size is not None and self.size > self.max_size):
            _, (_, evicted) = self._items.popitem(last=False)
            self.size -= evicted

    def get(self, key: K) -> V | None:
        """The value under `key` (now the most recently used), or `None`."""
        item = self._items.get(key)
        if item is None:
            return None
        self._items.move_to_end(key)
        return item[0]

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        """Forget everything."""
        self._items.clear()
        self.size = 0


class WorkerStore:
    """A worker's messages, conversation prefixes, tool results and request parameters, each bounded."""

    def __init__(
        self, max_messages: int = 20_000, max_content_bytes: int = 256 * 1024 * 1024, max_parameters: int = 1_000
    ) -> None:
        self.messages: LruStore[str, ModelMessage] = LruStore(max_messages)
        self.prefixes: LruStore[str, list[str]] = LruStore(max(1, max_messages // 10))
        self.contents: LruStore[str, bytes | str] = LruStore(max_messages, max_content_bytes)
        """Tool results by key: a string result as itself, any other as its JSON (see `keep_content`)."""
        self.parameters: LruStore[str, ModelRequestParameters] = LruStore(max_parameters)

    def clear(self) -> None:
        """Forget everything (as a restarted worker would)."""
        for store in (self.messages, self.prefixes, self.contents, self.parameters):
            store.clear()

    def add_content(self, result: Any) -> str | None:
        """Keep a tool result's JSON; the key the workflow may name it by, or `None` if too small to bother."""
        data = pydantic_core.to_json(result)
        if len(data) < MIN_REFERENCED_CONTENT:
            return None
        key = content_key(data)
        self.keep_content(key, data, result)
        return key

    def put_content(self, key: str, result: Any) -> None:
        """Keep a tool result under the key a tool activity reported for it (when rebuilding from history)."""
        self.keep_content(key, pydantic_core.to_json(result), result)

    def keep_content(self, key: str, data: bytes, result: Any) -> None:
        """Keep the tool result `result`, of JSON `data`, under `key`.

        A string result is kept as itself. A long conversation's model requests each put back every result it
        carries by reference (`activities._carried_contents`), and decoding their JSON again for each request was
        the most CPU a request spent (hundreds of requests, each decoding megabytes); a string is immutable, so
        every request can share it. Any other result is kept as JSON and decoded for each request, so no request
        sees what another changed in it.
        """
        if type(result) is str:  # not a subclass (a `StrEnum` member): the workflow decodes those as plain strings
            self.contents.put(key, result, sys.getsizeof(result))
        else:
            self.contents.put(key, data, len(data))

    def content(self, key: str) -> Any | None:
        """A kept tool result, decoded as the workflow decoded it; `None` if not kept here."""
        kept = self.contents.get(key)
        return pydantic_core.from_json(kept) if isinstance(kept, bytes) else kept

    def extend_prefix(self, previous: str | None, keys: list[str]) -> tuple[str, list[str]] | None:
        """The key and message keys of `previous` extended by `keys`, remembered; `None` if `previous` is unknown."""
        base: list[str] = []
        if previous is not None:
            known = self.prefixes.get(previous)
            if known is None:
                return None
            base = known
        full = [*base, *keys]
        key = prefix_key(previous, keys)
        self.prefixes.put(key, full)
        return key, full

    def resolve(self, keys: list[str], included: dict[str, ModelMessage]) -> list[ModelMessage] | None:
        """The messages named by `keys` (from `included` or the store), or `None` if any is unknown here."""
        for key, message in included.items():
            self.messages.put(key, message)
        resolved: list[ModelMessage] = []
        for key in keys:
            message = self.messages.get(key)
            if message is None:
                return None
            resolved.append(message)
        return resolved


worker_store = WorkerStore()
"""The store of this worker process."""
