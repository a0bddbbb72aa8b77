"""The warning category for deprecated APIs.

It derives from `UserWarning` rather than `DeprecationWarning` because Python hides `DeprecationWarning` raised from
library code by default, so users would never see that an API they call is going away.
"""

import warnings
from collections.abc import Callable
from typing import Any

__all__ = ('PydanticAIDeprecationWarning', 'warn_prepare_returned_none')


class PydanticAIDeprecationWarning(UserWarning):
    """Warned when a deprecated API (an old name, parameter or spec form) is used; the message names the new one."""


def warn_prepare_returned_none(func: Callable[..., Any]) -> None:
    """Warn that a tools-prepare function returned `None`, which hides every definition it was given."""
    name = getattr(func, '__qualname__', None) or repr(func)
    warnings.warn(
        f'prepare callback {name!r} returned `None`: returning `None` from a prepare callback is deprecated and '
        'hides all the tool definitions it was given for this step. Return `[]` to hide them, or `tool_defs` to '
        'keep them.',
        PydanticAIDeprecationWarning,
        stacklevel=3,
    )
