"""`AgentSpec`: an agent described as data (JSON or YAML), imported as `agent.agent.spec`."""

from agent._spec import AgentSpec, CapabilitySpec
from agent._spec_files import capability_registry as get_capability_registry
from agent._spec_files import infer_format as _infer_fmt  # noqa: F401  # pyright: ignore[reportUnusedImport]

__all__ = ('AgentSpec', 'CapabilitySpec', 'get_capability_registry')
