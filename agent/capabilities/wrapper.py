"""`WrapperCapability`, for capabilities that adjust another one (`agent.capabilities.wrapper`)."""

from ._wrapper import WrapperCapability

__all__ = ('WrapperCapability',)
