"""`AgentSpec`: an agent described as data (JSON or YAML), imported as `agent.agent.spec`."""

from agent._spec import AgentSpec, CapabilitySpec

__all__ = ('AgentSpec', 'CapabilitySpec')
