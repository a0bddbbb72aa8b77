"""`AbstractCapability`, the base of every capability, and the types its hooks take (`agent.capabilities.abstract`)."""

from ._abstract import HOOK_NAMES, AbstractCapability, RawOutput, WrapOutputProcessHandler, WrapOutputValidateHandler
from ._types import (
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

__all__ = (
    'HOOK_NAMES',
    'AbstractCapability',
    'AgentNode',
    'NodeResult',
    'RawOutput',
    'RawToolArgs',
    'ValidatedToolArgs',
    'WrapModelRequestHandler',
    'WrapNodeRunHandler',
    'WrapOutputProcessHandler',
    'WrapOutputValidateHandler',
    'WrapRunHandler',
    'WrapToolExecuteHandler',
    'WrapToolValidateHandler',
)
