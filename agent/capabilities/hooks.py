"""`Hooks`: a capability built from decorated functions instead of a subclass (`agent.capabilities.hooks`)."""

from ._hooks import HookRegistry, Hooks

__all__ = ('HookRegistry', 'Hooks')
