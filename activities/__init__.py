"""Activities: model requests, tool executions and the activity-side halves of capability hooks.

The names below are imported when first used (PEP 562): a module such as `activities._types` imports this package
first, and the activities themselves bring in every SDK and HTTP client a model request or tool call may need.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._agent_activities import agent_activities
    from ._names import call_tool_activity_name, model_request_activity_name
    from ._types import ActivityRunContext, CallToolInput, ModelRequestInput

__all__ = (
    'ActivityRunContext',
    'CallToolInput',
    'ModelRequestInput',
    'agent_activities',
    'call_tool_activity_name',
    'model_request_activity_name',
)

_HOME = {
    'ActivityRunContext': '_types',
    'CallToolInput': '_types',
    'ModelRequestInput': '_types',
    'agent_activities': '_agent_activities',
    'call_tool_activity_name': '_names',
    'model_request_activity_name': '_names',
}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use and kept here after."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    value = getattr(importlib.import_module(f'{__name__}.{module}'), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
