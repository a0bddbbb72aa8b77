"""The warning category for deprecated APIs.

It derives from `UserWarning` rather than `DeprecationWarning` because Python hides `DeprecationWarning` raised from
library code by default, so users would never see that an API they call is going away.
"""

__all__ = ('PydanticAIDeprecationWarning',)


class PydanticAIDeprecationWarning(UserWarning):
    """Warned when a deprecated API (an old name, parameter or spec form) is used; the message names the new one."""
