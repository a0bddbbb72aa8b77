"""Tool search over deferred tools: the name of the local search tool (the toolset is not available yet)."""

from agent._typed_tool_parts import SEARCH_TOOLS_NAME

__all__ = ('_SEARCH_TOOLS_NAME',)

_SEARCH_TOOLS_NAME = SEARCH_TOOLS_NAME
"""The local tool a model calls to discover deferred tools."""
