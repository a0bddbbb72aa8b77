"""`HttpPublisher`: a worker's turn events to the chat server, as NDJSON batches over HTTP (see `_relay`)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from types import TracebackType

import httpx2

from ._relay import TurnEventPublisher
from ._turn_events import TurnEvent, encode_turn_event

__all__ = ('HttpPublisher',)

logger = logging.getLogger('doors.chat')


class HttpPublisher(TurnEventPublisher):
    """Publishes to a chat server's `turn_events_route`: one sender per worker process, best effort.

    Events queue (bounded) and a background task posts what queued as one NDJSON request, then the next (at most
    one request per `linger`, so a delta after a pause goes at once and a busy stream goes in batches); while
    the chat server cannot be reached or refuses them, events are dropped for `retry_after` seconds at a time.
    Close it (`aclose`, or `async with`) when the worker stops.
    """

    def __init__(
        self,
        url: str,
        token: str,
        *,
        max_queue: int = 10_000,
        max_batch_bytes: int = 1_000_000,
        linger: float = 0.01,
        timeout: float = 5.0,
        flush_timeout: float = 0.5,
        retry_after: float = 1.0,
        client: httpx2.AsyncClient | None = None,
    ) -> None:
        """Create a publisher.

        Args:
            url: The chat server's turn events endpoint, e.g. `http://chat:8000/internal/turn-events`.
            token: The shared token the endpoint checks.
            max_queue: Most events waiting to be sent; more are dropped.
            max_batch_bytes: Most bytes in one request (under the endpoint's limit); a larger event is dropped.
            linger: Least seconds between two requests: events that come sooner wait and go together.
            timeout: Seconds one request may take.
            flush_timeout: Most seconds an activity waits at its end for its events to be taken (keep it well
                under the activity's heartbeat timeout).
            retry_after: Seconds events are dropped after a failed request, before trying again.
            client: The HTTP client to send with (the publisher makes its own otherwise).
        """
        if not token:
            raise ValueError('HttpPublisher needs a non-empty token.')
        self._url = url
        self._headers = {'authorization': f'Bearer {token}', 'content-type': 'application/x-ndjson'}
        self._max_queue = max_queue
        self._max_batch_bytes = max_batch_bytes
        self._linger = linger
        self._timeout = timeout
        self._flush_timeout = flush_timeout
        self._retry_after = retry_after
        self._client = client
        self._queue: deque[bytes] = deque()
        self._enqueued = 0  # events queued so far
        self._settled = 0  # of those, events sent or dropped
        self._down_until = 0.0  # monotonic time until which events are dropped
        self._failing = False
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._progress = asyncio.Event()
        self.sent = 0
        """Events the chat server took."""
        self.dropped = 0
        """Events dropped: queue full, chat server down or refusing, event too large."""

    def _send(self, record: TurnEvent) -> None:
        line = encode_turn_event(record)
        if len(line) > self._max_batch_bytes:
            self.dropped += 1
            logger.warning(
                'Turn event of %s not sent: %d bytes, over the %d a batch may take.',
                record.activity_id,
                len(line),
                self._max_batch_bytes,
            )
            return
        if time.monotonic() < self._down_until or len(self._queue) >= self._max_queue:
            self.dropped += 1
            return
        self._queue.append(line)
        self._enqueued += 1
        self._ensure_sender()
        self._wake.set()

    async def _settle(self) -> None:
        target = self._enqueued
        try:
            async with asyncio.timeout(self._flush_timeout):
                while self._settled < target and time.monotonic() >= self._down_until:
                    await self._progress.wait()
        except TimeoutError:
            pass  # the events go on in the background; the activity does not wait longer

    def _ensure_sender(self) -> None:
        loop = asyncio.get_running_loop()
        if self._task is not None and not self._task.done() and self._task.get_loop() is loop:
            return
        # asyncio events belong to the loop that first waits on them: a new loop gets new ones.
        self._wake, self._progress = asyncio.Event(), asyncio.Event()
        self._task = loop.create_task(self._run(), name='turn-event-sender')

    def _advance(self, count: int) -> None:
        self._settled += count
        progress, self._progress = self._progress, asyncio.Event()
        progress.set()

    async def _run(self) -> None:
        client = self._client or httpx2.AsyncClient(timeout=self._timeout)
        last_post = 0.0
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._queue:
                    # At most one request per `linger`: a delta after a pause goes at once, a busy stream in batches.
                    if (wait := last_post + self._linger - time.monotonic()) > 0:
                        await asyncio.sleep(wait)
                    last_post = time.monotonic()
                    batch = self._take_batch()
                    if await self._post(client, batch):
                        self.sent += len(batch)
                        self._advance(len(batch))
                    else:
                        dropped = len(batch) + len(self._queue)
                        self.dropped += dropped
                        self._queue.clear()
                        self._advance(dropped)
        finally:
            if self._client is None:
                await client.aclose()

    def _take_batch(self) -> list[bytes]:
        batch: list[bytes] = []
        size = 0
        while self._queue and size + len(self._queue[0]) <= self._max_batch_bytes:
            line = self._queue.popleft()
            batch.append(line)
            size += len(line)
        return batch

    async def _post(self, client: httpx2.AsyncClient, batch: list[bytes]) -> bool:
        try:
            response = await client.post(self._url, content=b''.join(batch), headers=self._headers)
        except Exception as exc:  # best effort: no failure to send may stop the sender
            return self._failed(f'{type(exc).__name__}: {exc}' if str(exc) else type(exc).__name__)
        if response.status_code >= 300:
            return self._failed(f'it answered {response.status_code} {response.text[:200]!r}')
        if self._failing:
            self._failing = False
            logger.info('Turn events reach the chat server at %s again.', self._url)
        return True

    def _failed(self, reason: str) -> bool:
        self._down_until = time.monotonic() + self._retry_after
        if not self._failing:
            self._failing = True
            logger.warning(
                'Turn events do not reach the chat server at %s (%s); they are dropped until it takes them again. '
                'The turns go on, and their results are in the history.',
                self._url,
                reason,
            )
        return False

    async def aclose(self) -> None:
        """Send what is queued (waiting at most `flush_timeout`), then stop the sender."""
        if self._task is None:
            return
        await self._settle()
        task, self._task = self._task, None
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            if (current := asyncio.current_task()) is not None and current.cancelling():
                raise

    async def __aenter__(self) -> HttpPublisher:
        self._ensure_sender()  # its HTTP client is ready before the first event
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
