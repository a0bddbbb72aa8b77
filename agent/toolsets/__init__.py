"""Toolsets: where an agent's tools come from, and the wrappers that reshape them."""

from ._dynamic import DynamicToolset, as_toolset
from .abstract import AbstractToolset, AgentToolset, ArgsValidator, ToolsetFunc, ToolsetTool
from .approval_required import ApprovalRequiredToolset
from .combined import CombinedToolset
from .external import ExternalToolset
from .filtered import FilteredToolset
from .function import FunctionToolset
from .prefixed import PrefixedToolset
from .prepared import PreparedToolset
from .renamed import RenamedToolset
from .wrapper import WrapperToolset

__all__ = (
    'AbstractToolset',
    'AgentToolset',
    'ApprovalRequiredToolset',
    'ArgsValidator',
    'CombinedToolset',
    'DynamicToolset',
    'ExternalToolset',
    'FilteredToolset',
    'FunctionToolset',
    'PrefixedToolset',
    'PreparedToolset',
    'RenamedToolset',
    'ToolsetFunc',
    'ToolsetTool',
    'WrapperToolset',
    'as_toolset',
)
