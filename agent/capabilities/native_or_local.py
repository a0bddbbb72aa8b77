"""Capabilities that use the provider's native tool where the model has one, and a local tool elsewhere.

Importable as `agent.capabilities.native_or_local`; `BuiltinOrLocalTool` is the seeds' name of `NativeOrLocalTool`.
"""

from ._builtin_or_local import BuiltinOrLocalTool
from ._builtin_or_local import BuiltinOrLocalTool as NativeOrLocalTool

__all__ = ('BuiltinOrLocalTool', 'NativeOrLocalTool')
