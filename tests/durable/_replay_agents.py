"""The agents of the committed histories: `record_histories.py` records runs of them, `test_replay.py` replays."""

from __future__ import annotations

from typing import Any

from agent import Agent
from agent.models.function import FunctionModel

from .test_agent_workflow import AGENTS as TOOL_AGENTS
from .test_conversations import chat_agent, remembers
from .test_mcp_durable import stdio_agent
from .waiting_agent import Inbox, file_agent

REPLAY_AGENTS: dict[str, Agent[Any, Any]] = {
    **TOOL_AGENTS,
    'chat_agent': chat_agent,
    # Replaying needs no server: the tool list and the tool results come from the history.
    'mcp_replay': stdio_agent('mcp_replay', id='calc'),
    # A replay takes `ask`'s answer from the history: it is never called there.
    'request_input_agent': file_agent('request_input_agent', Inbox()),
    # The agent a chat_agent conversation is handed off to.
    'billing_replay': Agent(FunctionModel(remembers), name='billing_replay'),
}
