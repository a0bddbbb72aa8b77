"""Grouping the items of a stream that arrive close together in time (the `debounce_by` of the streaming APIs).

```
items:   a b c ........ d ....... e f        (arrival times)
groups:  [a b c]        [d]       [e f]      (each group: what arrived within `interval` of its first item)
```

A group opens with its first item and closes `interval` seconds later (or when the source ends); nothing is held
back at the end. The clock is the event loop's, which is deterministic inside a workflow, unlike the system clock.
The pending read of the source is never cancelled while the group waits, only when the consumer leaves early, so
a source that is an async generator is not interrupted mid-item.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, TypeVar

__all__ = ('group_by_time',)

T = TypeVar('T')


async def group_by_time(source: AsyncIterator[T], interval: float | None) -> AsyncIterator[list[T]]:
    """Yield the items of `source` in lists, each holding what arrived within `interval` seconds of its first item.

    With `interval=None` every item is a group of its own.
    """
    if interval is None:
        async for item in source:
            yield [item]
        return
    loop = asyncio.get_running_loop()
    pending: asyncio.Future[Any] | None = None
    try:
        while True:
            group: list[T] = []
            deadline: float | None = None
            while True:
                if pending is None:
                    pending = asyncio.ensure_future(anext(source))
                timeout = None if deadline is None else max(deadline - loop.time(), 0)
                done, _ = await asyncio.wait({pending}, timeout=timeout)
                if not done:
                    break
                finished, pending = pending, None
                try:
                    item = finished.result()
                except StopAsyncIteration:
                    if group:
                        yield group
                    return
                group.append(item)
                if deadline is None:
                    deadline = loop.time() + interval
            yield group
    finally:
        if pending is not None and not pending.done():
            pending.cancel()
            await asyncio.gather(pending, return_exceptions=True)
