"""Defaults that the command line's help shows and its commands use, apart from the commands' own modules.

The parser is built for every command line (and for `--help`) before any command runs; the commands' modules import
the SDK and the agent runtime, so the parser reads its defaults here instead.
"""

from __future__ import annotations

__all__ = ('ANSWER_TIMEOUT', 'DEV_PORT')

DEV_PORT = 7233
"""The embedded dev server's frontend port by default: the one Temporal's tools connect to without settings."""

ANSWER_TIMEOUT = 10.0
"""Seconds each step of an answer waits for a worker by default (`--timeout`)."""
