"""Which AG-UI protocol version a stream speaks, and the versions where its wire format changed."""

from __future__ import annotations

import importlib.metadata
import re

from agent.exceptions import UserError

__all__ = (
    'DEFAULT_AG_UI_VERSION',
    'MULTIMODAL_VERSION',
    'REASONING_VERSION',
    'detect_ag_ui_version',
    'parse_ag_ui_version',
)

REASONING_VERSION = (0, 1, 13)
"""From this version thinking travels as `REASONING_*` events and `ReasoningMessage`s (before: `THINKING_*`)."""

MULTIMODAL_VERSION = (0, 1, 15)
"""From this version user files travel as typed input content (image, audio, video, document) and a reasoning
message's role is `'reasoning'` (before: `BinaryInputContent` and `'assistant'`)."""

_FALLBACK_VERSION = '0.1.10'
_LEADING_NUMBERS = re.compile(r'\d+(?:\.\d+)*')


def parse_ag_ui_version(version: str) -> tuple[int, ...]:
    """A version string as a tuple to compare, e.g. `'0.1.13rc1'` -> `(0, 1, 13)` (pre-release tags are ignored).

    Raises:
        UserError: The string does not start with a dotted number.
    """
    match = _LEADING_NUMBERS.match(version)
    if match is None:
        raise UserError(f"Invalid AG-UI version {version!r}: expected a dotted numeric version like '0.1.13'")
    return tuple(int(number) for number in match.group().split('.'))


def detect_ag_ui_version() -> str:
    """The installed `ag-ui-protocol` package's version, or `'0.1.10'` (the oldest format) when it cannot be read."""
    try:
        return importlib.metadata.version('ag-ui-protocol')
    except Exception:
        return _FALLBACK_VERSION


DEFAULT_AG_UI_VERSION: str = detect_ag_ui_version()
"""The version streams speak unless told otherwise: that of the installed protocol package, which the
frontend built against the same release understands."""
