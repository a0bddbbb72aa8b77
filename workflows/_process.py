"""Settings of a process that serves as a worker (the worker command's, and any process started like it), and how a
command's process ends."""

from __future__ import annotations

import gc
import os
import sys
from typing import NoReturn

__all__ = ('exit_process', 'freeze_startup_heap')


def freeze_startup_heap() -> None:
    """Keep what the process built while starting out of the garbage collector's full collections.

    Before a worker serves anything it has imported its agents, their schemas, Temporal's SDK and the sandbox's
    restrictions: tens of thousands of objects that live as long as the process. Python's full collection walks
    every one of them, and it runs more often the more objects each run leaves behind for a while (a finished
    span waiting in a batch exporter's queue, a cached workflow): a traced worker walked its start-up heap every
    few hundred runs, at tens of milliseconds each. Frozen (`gc.freeze()`), those objects are skipped; they are
    still freed by reference counting when dropped, only cycles among them are kept.

    Call once the worker has started (its agents loaded and its `Worker` built).
    """
    gc.collect()
    gc.freeze()


def exit_process(code: int = 0) -> NoReturn:
    """Leave the process without interpreter finalization.

    Temporal's core runtime keeps native threads that can abort the interpreter while it finalizes
    (a PyGILState_Release fatal error), turning a successful command into a crash; command-line entry
    points therefore flush their output and exit directly once their work is done.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
