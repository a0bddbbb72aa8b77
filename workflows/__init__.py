"""The deterministic Temporal workflow that drives the agent graph.

Workflow code imports only dataclasses, the agent graph and activity references: no HTTP clients or SDKs.
"""

from ._agent_workflow import AgentWorkflow
from ._registry import get_agent, register_agent, registered_agents
from ._types import AgentRunInput, AgentRunOutput, RunStatus

__all__ = (
    'AgentRunInput',
    'AgentRunOutput',
    'AgentWorkflow',
    'RunStatus',
    'get_agent',
    'register_agent',
    'registered_agents',
)
