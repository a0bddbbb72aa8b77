"""Toolsets: where an agent's tools come from, and the wrappers that reshape them."""

from ._dynamic import DynamicToolset, as_toolset
from .abstract import AbstractToolset, AgentToolset, ArgsValidator, ToolsetFunc, ToolsetTool
from .approval_required import ApprovalRequiredToolset
from .combined import CombinedToolset
from .deferred_loading import DeferredLoadingToolset
from .external import ExternalToolset
from .filtered import FilteredToolset
from .function import FunctionToolset
from .include_return_schemas import IncludeReturnSchemasToolset
from .prefixed import PrefixedToolset
from .prepared import PreparedToolset
from .renamed import RenamedToolset
from .set_metadata import SetMetadataToolset
from .wrapper import WrapperToolset

__all__ = (
    'AbstractToolset',
    'AgentToolset',
    'ApprovalRequiredToolset',
    'ArgsValidator',
    'CombinedToolset',
    'DeferredLoadingToolset',
    'DynamicToolset',
    'ExternalToolset',
    'FilteredToolset',
    'FunctionToolset',
    'IncludeReturnSchemasToolset',
    'PrefixedToolset',
    'PreparedToolset',
    'RenamedToolset',
    'SetMetadataToolset',
    'ToolsetFunc',
    'ToolsetTool',
    'WrapperToolset',
    'as_toolset',
)
