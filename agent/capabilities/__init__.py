"""Capabilities: reusable, composable units of agent behaviour (tools, hooks, instructions, model settings).

Subclass `AbstractCapability` and override the configuration methods and lifecycle hooks you need; pass
instances to `Agent(capabilities=[...])`, which composes them into one `CombinedCapability`. The
`run_with_*_hooks` drivers run one lifecycle point with a capability's hooks around it.
"""

from typing import Any

from agent.toolsets import AgentToolset

from ._abstract import HOOK_NAMES, AbstractCapability, RawOutput, WrapOutputProcessHandler, WrapOutputValidateHandler
from ._builtin_or_local import BuiltinOrLocalTool, LocalTool
from ._builtin_or_local import BuiltinOrLocalTool as NativeOrLocalTool
from ._builtin_tool import BuiltinTool, NativeTool
from ._capability import Capability
from ._combined import CombinedCapability
from ._deferred_handler import HandleDeferredToolCalls
from ._dispatch import (
    run_with_model_request_hooks,
    run_with_node_hooks,
    run_with_output_process_hooks,
    run_with_output_validate_hooks,
    run_with_run_hooks,
    run_with_tool_execute_hooks,
    run_with_tool_validate_hooks,
)
from ._dynamic import AgentCapability, CapabilityFunc, DynamicCapability
from ._history_processor import HistoryProcessor, ProcessHistory
from ._hook_registry import HookRegistry, HookTimeoutError
from ._hooks import Hooks
from ._image_generation import ImageGeneration
from ._include_return_schemas import IncludeToolReturnSchemas
from ._instrumentation import Instrumentation
from ._mcp import MCP
from ._ordering import CapabilityOrdering, CapabilityPosition, CapabilityRef
from ._prefix_tools import PrefixTools
from ._prepare_tools import PrepareOutputTools, PrepareTools
from ._process_event_stream import ProcessEventStream
from ._reinject_system_prompt import ReinjectSystemPrompt
from ._request_input import RequestInput
from ._set_tool_metadata import SetToolMetadata
from ._sides import IO_HOOKS, HookSide, hook_side, split_by_side
from ._thinking import Thinking
from ._thread_executor import ThreadExecutor
from ._tool_search import ToolSearch
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
from ._x_search import XSearch

__all__ = (
    'CAPABILITY_TYPES',
    'HOOK_NAMES',
    'IO_HOOKS',
    'MCP',
    'AbstractCapability',
    'AgentBuiltinTool',
    'AgentCapability',
    'AgentInstructions',
    'AgentModelSettings',
    'AgentNode',
    'AgentToolset',
    'BuiltinOrLocalTool',
    'BuiltinTool',
    'Capability',
    'CapabilityFunc',
    'CapabilityOrdering',
    'CapabilityPosition',
    'CapabilityRef',
    'CombinedCapability',
    'DynamicCapability',
    'HandleDeferredToolCalls',
    'HistoryProcessor',
    'HookRegistry',
    'HookSide',
    'HookTimeoutError',
    'Hooks',
    'ImageGeneration',
    'IncludeToolReturnSchemas',
    'Instrumentation',
    'LocalTool',
    'NativeOrLocalTool',
    'NativeTool',
    'NodeResult',
    'PrefixTools',
    'PrepareOutputTools',
    'PrepareTools',
    'ProcessEventStream',
    'ProcessHistory',
    'RawOutput',
    'RawToolArgs',
    'ReinjectSystemPrompt',
    'RequestInput',
    'SetToolMetadata',
    'Thinking',
    'ThreadExecutor',
    'ToolSearch',
    'Toolset',
    'ValidatedToolArgs',
    'WebFetch',
    'WebSearch',
    'WrapModelRequestHandler',
    'WrapNodeRunHandler',
    'WrapOutputProcessHandler',
    'WrapOutputValidateHandler',
    'WrapRunHandler',
    'WrapToolExecuteHandler',
    'WrapToolValidateHandler',
    'WrapperCapability',
    'XSearch',
    'hook_side',
    'run_with_model_request_hooks',
    'run_with_node_hooks',
    'run_with_output_process_hooks',
    'run_with_output_validate_hooks',
    'run_with_run_hooks',
    'run_with_tool_execute_hooks',
    'run_with_tool_validate_hooks',
    'split_by_side',
)


def _capability_types() -> dict[str, type[AbstractCapability[Any]]]:
    # `BuiltinTool` is `NativeTool`'s older spec name: specs still read it (`_spec._legacy_class`), unlisted.
    bases = (AbstractCapability, WrapperCapability, CombinedCapability, BuiltinTool)
    found: dict[str, type[AbstractCapability[Any]]] = {}
    for value in list(globals().values()):
        if isinstance(value, type) and issubclass(value, AbstractCapability) and value not in bases:
            name = value.get_serialization_name()
            if name:
                found[name] = value
    return found


CAPABILITY_TYPES: dict[str, type[AbstractCapability[Any]]] = _capability_types()
"""Every capability that agent specs can name, by its serialization name (`get_serialization_name()`)."""
