"""`agent.native_tools._tool_search`: where Pydantic AI code imports `ToolSearchTool` from.

`agent.native_tools` is a module rather than a package, so it registers this module under that dotted name.
"""

from .builtin_tools import ToolSearchTool

__all__ = ('TOOL_SEARCH_FUNCTION_TOOL_NAME', 'ToolSearchTool')

TOOL_SEARCH_FUNCTION_TOOL_NAME = 'search_tools'
"""The local tool a model calls to discover deferred tools when the provider cannot search natively."""
