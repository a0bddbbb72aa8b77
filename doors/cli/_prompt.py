"""Questions asked at the terminal from async code, without keeping the process alive or ignoring Ctrl-C.

`input()` in a worker thread (`asyncio.to_thread`) looks right but is not: Ctrl-C cancels the main task, and then
`asyncio.run` waits for its default executor, whose thread still blocks in `input()` until the person presses
Enter, so the first Ctrl-C hangs. Here one daemon thread reads standard input for the whole process and hands
each line to the event loop; a question waits on that queue, and can give up when what it asks about is settled
elsewhere.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Awaitable, Callable

__all__ = ('Answered', 'Answers')


class Answered(Exception):
    """The question was settled elsewhere while the prompt waited."""


class Answers:
    """Lines a person types, read by a daemon thread of their own."""

    def __init__(self) -> None:
        self._lines: asyncio.Queue[str | None] | None = None
        self._next: asyncio.Future[str | None] | None = None
        self._ended = False

    def _start(self) -> asyncio.Queue[str | None]:
        if self._lines is None:
            lines: asyncio.Queue[str | None] = asyncio.Queue()
            loop = asyncio.get_running_loop()

            def read() -> None:
                try:
                    for line in sys.stdin:
                        loop.call_soon_threadsafe(lines.put_nowait, line.rstrip('\r\n'))
                    loop.call_soon_threadsafe(lines.put_nowait, None)
                except (RuntimeError, ValueError):  # the loop has closed, or stdin has: nobody asks any more
                    return

            threading.Thread(target=read, name='answers-stdin', daemon=True).start()
            self._lines = lines
        return self._lines

    async def line(
        self, prompt: str, *, still: Callable[[], Awaitable[bool]] | None = None, every: float = 1.0
    ) -> str | None:
        """The next line typed after `prompt`, without its newline; `None` once the input has ended.

        Raises:
            Answered: if `still()` (asked every `every` seconds while waiting) says the question is moot.
        """
        print(prompt, end='', flush=True)
        if self._ended:
            print(flush=True)
            return None
        if self._next is None:
            self._next = asyncio.ensure_future(self._start().get())
        while True:
            done, _ = await asyncio.wait({self._next}, timeout=every if still is not None else None)
            if done:
                answer, self._next = self._next.result(), None
                self._ended = answer is None
                if not sys.stdin.isatty():
                    print(answer if answer is not None else '', flush=True)  # a terminal echoes it; a pipe does not
                return answer
            if still is not None and not await still():
                print(flush=True)
                raise Answered
