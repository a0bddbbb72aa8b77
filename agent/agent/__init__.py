"""`Agent`, the class every run starts from; `agent.agent.spec` describes agents as data."""

from agent._agent import Agent, EndStrategy, capture_run_messages

__all__ = ('Agent', 'EndStrategy', 'capture_run_messages')
