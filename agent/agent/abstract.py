"""`AbstractAgent`, the interface every agent implements (`Agent`, `WrapperAgent`)."""

from agent._abstract_agent import AbstractAgent

__all__ = ('AbstractAgent',)
