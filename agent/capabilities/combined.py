"""`CombinedCapability`: several capabilities acting as one (`agent.capabilities.combined`)."""

from ._combined import CombinedCapability

__all__ = ('CombinedCapability',)
