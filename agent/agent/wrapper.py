"""`WrapperAgent`, an agent that forwards everything to the agent it wraps."""

from agent._wrapper_agent import WrapperAgent

__all__ = ('WrapperAgent',)
