"""The durable chat's earlier path: its names now live in `doors.chat` (the chat server is a front door).

`from workflows.chat import DurableChatBackend` and `python -m workflows.chat` keep working for programs and
scripts written against this path. This alias is the one module of `workflows` that reaches above it, and only
when one of its names is used (PEP 562), so importing `workflows` never loads the chat server.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOME = 'doors.chat'


def __getattr__(name: str) -> Any:
    """A name of `doors.chat`, imported on first use."""
    if name.startswith('__'):
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    return getattr(importlib.import_module(_HOME), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *importlib.import_module(_HOME).__all__})
