"""Capabilities: reusable, composable units of agent behaviour (tools, hooks, instructions, model settings).

Subclass `AbstractCapability` and override the configuration methods and lifecycle hooks you need; pass
instances to `Agent(capabilities=[...])`, which composes them into one `CombinedCapability`. The
`run_with_*_hooks` drivers run one lifecycle point with a capability's hooks around it.
"""

from agent.toolsets import AgentToolset

from ._abstract import HOOK_NAMES, AbstractCapability
from ._builtin_or_local import BuiltinOrLocalTool, LocalTool
from ._builtin_tool import BuiltinTool, NativeTool
from ._combined import CombinedCapability
from ._dispatch import (
    run_with_model_request_hooks,
    run_with_node_hooks,
    run_with_run_hooks,
    run_with_tool_execute_hooks,
    run_with_tool_validate_hooks,
)
from ._history_processor import HistoryProcessor
from ._hooks import HookRegistry, Hooks
from ._image_generation import ImageGeneration
from ._include_return_schemas import IncludeToolReturnSchemas
from ._mcp import MCP
from ._prefix_tools import PrefixTools
from ._prepare_tools import PrepareTools
from ._reinject_system_prompt import ReinjectSystemPrompt
from ._sides import IO_HOOKS, HookSide, hook_side, split_by_side
from ._thinking import Thinking
from ._thread_executor import ThreadExecutor
from ._toolset import Toolset
from ._types import (
    AgentBuiltinTool,
    AgentInstructions,
    AgentModelSettings,
    AgentNode,
    NodeResult,
    RawToolArgs,
    ValidatedToolArgs,
    WrapModelRequestHandler,
    WrapNodeRunHandler,
    WrapRunHandler,
    WrapToolExecuteHandler,
    WrapToolValidateHandler,
)
from ._web_fetch import WebFetch
from ._web_search import WebSearch
from ._wrapper import WrapperCapability

__all__ = (
    'HOOK_NAMES',
    'IO_HOOKS',
    'MCP',
    'AbstractCapability',
    'AgentBuiltinTool',
    'AgentInstructions',
    'AgentModelSettings',
    'AgentNode',
    'AgentToolset',
    'BuiltinOrLocalTool',
    'BuiltinTool',
    'CombinedCapability',
    'HistoryProcessor',
    'HookRegistry',
    'HookSide',
    'Hooks',
    'ImageGeneration',
    'IncludeToolReturnSchemas',
    'LocalTool',
    'NativeTool',
    'NodeResult',
    'PrefixTools',
    'PrepareTools',
    'RawToolArgs',
    'ReinjectSystemPrompt',
    'Thinking',
    'ThreadExecutor',
    'Toolset',
    'ValidatedToolArgs',
    'WebFetch',
    'WebSearch',
    'WrapModelRequestHandler',
    'WrapNodeRunHandler',
    'WrapRunHandler',
    'WrapToolExecuteHandler',
    'WrapToolValidateHandler',
    'WrapperCapability',
    'hook_side',
    'run_with_model_request_hooks',
    'run_with_node_hooks',
    'run_with_run_hooks',
    'run_with_tool_execute_hooks',
    'run_with_tool_validate_hooks',
    'split_by_side',
)
