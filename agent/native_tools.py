"""Native (provider-executed) tools under their newer names: the same classes as `agent.builtin_tools`.

```python
from agent.native_tools import WebSearchTool

agent = Agent('anthropic:claude-sonnet-4-6', native_tools=[WebSearchTool()])
```
"""

import sys

import agent._native_tool_search as _native_tool_search

from .builtin_tools import (
    BUILTIN_TOOL_TYPES,
    DEPRECATED_NATIVE_TOOLS,
    NATIVE_TOOLS_REQUIRING_CONFIG,
    SUPPORTED_NATIVE_TOOLS,
    AbstractBuiltinTool,
    CodeExecutionTool,
    FileSearchTool,
    ImageAspectRatio,
    ImageGenerationTool,
    MCPServerTool,
    MemoryTool,
    ToolSearchTool,
    UrlContextTool,  # pyright: ignore[reportDeprecated]
    WebFetchTool,
    WebSearchTool,
    WebSearchUserLocation,
    XSearchTool,
    native_tool_kind,
)

__all__ = (
    'DEPRECATED_NATIVE_TOOLS',
    'NATIVE_TOOLS_REQUIRING_CONFIG',
    'NATIVE_TOOL_TYPES',
    'SUPPORTED_NATIVE_TOOLS',
    'AbstractNativeTool',
    'CodeExecutionTool',
    'FileSearchTool',
    'ImageAspectRatio',
    'ImageGenerationTool',
    'MCPServerTool',
    'MemoryTool',
    'ToolSearchTool',
    'UrlContextTool',
    'WebFetchTool',
    'WebSearchTool',
    'WebSearchUserLocation',
    'XSearchTool',
    'native_tool_kind',
)

AbstractNativeTool = AbstractBuiltinTool
"""The base class of native tools (`AbstractBuiltinTool` under its newer name)."""

NATIVE_TOOL_TYPES = BUILTIN_TOOL_TYPES
"""Every native tool class, by its `kind` (the same registry as `BUILTIN_TOOL_TYPES`)."""

# Pydantic AI code imports `ToolSearchTool` from the submodule `native_tools._tool_search`; this module is not a
# package, so the submodule is registered by its dotted name (the import system looks there first).
sys.modules[f'{__name__}._tool_search'] = _native_tool_search
