"""`NativeTool`: a tool the model provider runs itself, as a capability (`agent.capabilities.native_tool`)."""

from ._builtin_tool import BuiltinTool, NativeTool

__all__ = ('BuiltinTool', 'NativeTool')
