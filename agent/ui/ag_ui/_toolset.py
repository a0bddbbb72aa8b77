"""The frontend's tools (`RunAgentInput.tools`) as a toolset of the run.

The frontend runs these tools itself, so the agent only offers them to the model: a call to one ends the run
with `DeferredToolRequests`, the stream shows the call to the client, and the client's next request carries
the result as a tool message.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import Tool

from agent.tools import AgentDepsT, ToolDefinition
from agent.toolsets import ExternalToolset

__all__ = ('FRONTEND_TOOLSET_ID', 'frontend_toolset')

FRONTEND_TOOLSET_ID = 'ag-ui-frontend'
"""The id of the toolset of frontend tools."""


def frontend_toolset(tools: list[Tool]) -> ExternalToolset[AgentDepsT]:
    """A toolset offering the frontend's tools, whose calls the frontend executes."""
    return ExternalToolset[AgentDepsT]([_tool_def(tool) for tool in tools], id=FRONTEND_TOOLSET_ID)


def _tool_def(tool: Tool) -> ToolDefinition:
    # The protocol carries the schema opaquely and lets it be absent; a tool without one takes no arguments.
    parameters: Any = tool.parameters
    if not isinstance(parameters, dict):
        return ToolDefinition(name=tool.name, description=tool.description)
    return ToolDefinition(name=tool.name, description=tool.description, parameters_json_schema=parameters)  # pyright: ignore[reportUnknownArgumentType]
