"""Tool search message parts (the local `search_tools` call and its result).

Tool search itself is not available yet; see docs/compatibility.md.
"""

from ._typed_tool_parts import ToolSearchCallPart, ToolSearchReturnPart

__all__ = ('ToolSearchCallPart', 'ToolSearchReturnPart')
