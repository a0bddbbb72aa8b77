"""The `Instrumentation` capability (also exported from `agent.capabilities`)."""

from ._instrumentation import Instrumentation

__all__ = ('Instrumentation',)
