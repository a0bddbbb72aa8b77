"""Capabilities: reusable, composable units of agent behaviour (tools, hooks, instructions, model settings).

Subclass `AbstractCapability` and override the configuration methods and lifecycle hooks you need; pass
instances to `Agent(capabilities=[...])`, which composes them into one `CombinedCapability`. The
`run_with_*_hooks` drivers run one lifecycle point with a capability's hooks around it.
"""

from agent.toolsets import AgentToolset

from ._abstract import HOOK_NAMES, AbstractCapability
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
from ._prefix_tools import PrefixTools
from ._prepare_tools import PrepareTools
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
from ._wrapper import WrapperCapability

__all__ = (
    'HOOK_NAMES',
    'IO_HOOKS',
    'AbstractCapability',
    'AgentBuiltinTool',
    'AgentInstructions',
    'AgentModelSettings',
    'AgentNode',
    'AgentToolset',
    'CombinedCapability',
    'HistoryProcessor',
    'HookRegistry',
    'HookSide',
    'Hooks',
    'NodeResult',
    'PrefixTools',
    'PrepareTools',
    'RawToolArgs',
    'Thinking',
    'ThreadExecutor',
    'Toolset',
    'ValidatedToolArgs',
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
