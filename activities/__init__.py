"""Activities: model requests, tool executions and the activity-side halves of capability hooks."""

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
