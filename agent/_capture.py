"""`capture_run_messages()`: the messages of a run, even one that failed, for tests and debugging.

```python
with capture_run_messages() as messages:
    try:
        agent.run_sync('Hello')
    except UnexpectedModelBehavior:
        print(messages)  # what was exchanged before the failure
```

Only the first run started in the block is captured (a run that starts another agent's run in a tool would
otherwise overwrite it).
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from ._parts import ModelMessage

__all__ = ('capture_run_messages', 'claim_capture')


@dataclass
class _Capture:
    messages: list[ModelMessage] = field(default_factory=list[ModelMessage])
    claimed: bool = False


_current: ContextVar[_Capture | None] = ContextVar('capture_run_messages', default=None)


@contextmanager
def capture_run_messages() -> Generator[list[ModelMessage]]:
    """Capture the messages of the first agent run started inside the `with` block.

    Yields:
        A list that holds the run's messages (its history included) once the run has ended or failed.
    """
    capture = _Capture()
    token = _current.set(capture)
    try:
        yield capture.messages
    finally:
        _current.reset(token)


def claim_capture() -> list[ModelMessage] | None:
    """The list a starting run should fill, if it is the first run inside a `capture_run_messages` block."""
    capture = _current.get()
    if capture is None or capture.claimed:
        return None
    capture.claimed = True
    return capture.messages
