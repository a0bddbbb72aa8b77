"""`Agent`, the class every run starts from; `agent.agent.spec` describes agents as data."""

from agent._abstract_agent import AbstractAgent
from agent._agent import Agent, AgentRetries, EndStrategy, capture_run_messages
from agent._wrapper_agent import WrapperAgent

__all__ = (
    'AbstractAgent',
    'Agent',
    'AgentRetries',
    'EndStrategy',
    'WrapperAgent',
    'capture_run_messages',
)
