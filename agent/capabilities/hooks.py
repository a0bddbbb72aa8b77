"""`Hooks`: a capability built from decorated functions instead of a subclass (`agent.capabilities.hooks`)."""

from ._hook_registry import HookRegistry, HookTimeoutError
from ._hooks import Hooks

__all__ = ('HookRegistry', 'HookTimeoutError', 'Hooks')
