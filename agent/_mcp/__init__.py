"""The implementation of `agent.mcp` (import the public names from there), plus what durable workers need."""

from ._pool import MCPConnectionPool
from ._types import TOOL_RESULT_ADAPTER

__all__ = ('TOOL_RESULT_ADAPTER', 'MCPConnectionPool')
