"""Activity names: stable strings, so renaming Python code never breaks a run in flight."""

from __future__ import annotations

__all__ = (
    'call_tool_activity_name',
    'get_instructions_activity_name',
    'history_load_activity_name',
    'history_stash_activity_name',
    'list_tools_activity_name',
    'model_request_activity_name',
    'notify_activity_name',
)


def model_request_activity_name(agent_name: str) -> str:
    """`agent.<agent>.model_request`: one model request with the model-request hooks around it."""
    return f'agent.{agent_name}.model_request'


def call_tool_activity_name(agent_name: str) -> str:
    """`agent.<agent>.call_tool`: one tool execution with the tool-execute hooks around it."""
    return f'agent.{agent_name}.call_tool'


def notify_activity_name(agent_name: str) -> str:
    """`agent.<agent>.notify_deferred`: tells the agent's notifier that tool calls are waiting."""
    return f'agent.{agent_name}.notify_deferred'


def list_tools_activity_name(agent_name: str, toolset_id: str) -> str:
    """`agent.<agent>.toolset.<id>.list_tools`: the tools an MCP server (or other networked toolset) offers."""
    return f'agent.{agent_name}.toolset.{toolset_id}.list_tools'


def get_instructions_activity_name(agent_name: str, toolset_id: str) -> str:
    """`agent.<agent>.toolset.<id>.get_instructions`: the instructions a networked toolset adds (an MCP server's)."""
    return f'agent.{agent_name}.toolset.{toolset_id}.get_instructions'


def history_stash_activity_name(agent_name: str) -> str:
    """`agent.<agent>.history.stash`: writes a conversation's messages into the run's history for its next run."""
    return f'agent.{agent_name}.history.stash'


def history_load_activity_name(agent_name: str) -> str:
    """`agent.<agent>.history.load`: reads a page of the conversation an earlier run of the workflow ended with."""
    return f'agent.{agent_name}.history.load'
