"""The tools of one run step and the calls to them: `ToolManager` (the run reaches it as `ctx.tool_manager`)."""

from ._tool_manager import ParallelExecutionMode, ToolManager

__all__ = ('ParallelExecutionMode', 'ToolManager')
