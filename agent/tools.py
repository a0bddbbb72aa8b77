"""Tools: `Tool`, `ToolDefinition`, `RunContext`, deferred tool requests/results, and the tool type aliases."""

from __future__ import annotations

from ._content import ToolReturn
from ._deferred import (
    DeferredToolApprovalResult,
    DeferredToolCallResult,
    DeferredToolRequests,
    DeferredToolResult,
    DeferredToolResults,
    ToolApproved,
    ToolDenied,
)
from ._function_schema import FunctionSchema, GenerateToolJsonSchema
from ._run_context import (
    DEFAULT_INSTRUMENTATION_VERSION,
    EnqueueContent,
    PendingMessage,
    PendingMessagePriority,
    RunContext,
    RunContextAgentDepsT,
)
from ._tool import (
    AgentDepsT,
    AgentNativeTool,
    ArgsValidatorFunc,
    DocstringFormat,
    NativeToolFunc,
    SystemPromptFunc,
    Tool,
    ToolAgentDepsT,
    ToolFuncContext,
    ToolFuncEither,
    ToolFuncPlain,
    ToolParams,
    ToolPrepareFunc,
    ToolSelector,
    ToolSelectorFunc,
    ToolsPrepareFunc,
    matches_tool_selector,
)
from ._tool_def import FunctionSignature, ObjectJsonSchema, ToolDefinition, ToolKind, ToolPartKind

__all__ = (
    'DEFAULT_INSTRUMENTATION_VERSION',
    'AgentDepsT',
    'AgentNativeTool',
    'ArgsValidatorFunc',
    'DeferredToolApprovalResult',
    'DeferredToolCallResult',
    'DeferredToolRequests',
    'DeferredToolResult',
    'DeferredToolResults',
    'DocstringFormat',
    'EnqueueContent',
    'FunctionSchema',
    'FunctionSignature',
    'GenerateToolJsonSchema',
    'NativeToolFunc',
    'ObjectJsonSchema',
    'PendingMessage',
    'PendingMessagePriority',
    'RunContext',
    'RunContextAgentDepsT',
    'SystemPromptFunc',
    'Tool',
    'ToolAgentDepsT',
    'ToolApproved',
    'ToolDefinition',
    'ToolDenied',
    'ToolFuncContext',
    'ToolFuncEither',
    'ToolFuncPlain',
    'ToolKind',
    'ToolParams',
    'ToolPartKind',
    'ToolPrepareFunc',
    'ToolReturn',
    'ToolSelector',
    'ToolSelectorFunc',
    'ToolsPrepareFunc',
    'matches_tool_selector',
)
