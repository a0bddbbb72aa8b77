"""`DynamicCapability`: a capability chosen for each run by a function of the run context.

A plain function in `capabilities=[...]` becomes one of these, as in Pydantic AI. The function runs in
`for_run`, once per run; in a durable run it runs in the workflow (so it must be deterministic) and again in
the activities that need the capability's I/O hooks.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, cast

from agent._run_context import RunContext
from agent._threads import call_maybe_async
from agent._tool import AgentDepsT
from agent.exceptions import UserError

from ._abstract import AbstractCapability

__all__ = ('AgentCapability', 'CapabilityFunc', 'DynamicCapability', 'as_capabilities')

CapabilityFunc: TypeAlias = Callable[
    [RunContext[AgentDepsT]],
    AbstractCapability[AgentDepsT] | Awaitable[AbstractCapability[AgentDepsT] | None] | None,
]
"""A function (sync or async) of the run context returning the capability for the run, or `None` for none."""

AgentCapability: TypeAlias = AbstractCapability[AgentDepsT] | CapabilityFunc[AgentDepsT]
"""What `capabilities=[...]` takes: a capability, or a function returning one for each run."""


@dataclass
class DynamicCapability(AbstractCapability[AgentDepsT]):
    """Stands in for the capability `capability_func` returns for each run; contributes nothing by itself.

    Only hooks and per-run configuration (`get_wrapper_toolset`, and everything asked of the per-run instance)
    come from the returned capability: the agent's tools, instructions and model settings are gathered once,
    before any run, so a capability that adds those should be passed directly.
    """

    capability_func: CapabilityFunc[AgentDepsT]
    """Returns the capability for the run, or `None` for none."""

    def __post_init__(self) -> None:
        # The run registers the capability the function returns, not this stand-in: metadata set here would
        # be silently ignored, so it belongs on the returned capability.
        given = [name for name in ('id', 'description') if getattr(self, name) is not None]
        given += ['defer_loading'] if self.defer_loading else []
        if given:
            raise UserError(
                f'{", ".join(given)} is not supported on `DynamicCapability`: set it on the capability the '
                'function returns instead.'
            )

    @classmethod
    def get_serialization_name(cls) -> str | None:
        # Takes a function, which an agent spec cannot express.
        return None

    async def for_run(self, ctx: RunContext[AgentDepsT]) -> Any:
        """The function's capability for this run (its own per-run instance), or `self` if it returned `None`."""
        capability: object = await call_maybe_async(self.capability_func, ctx)
        if capability is None:
            return self
        if not isinstance(capability, AbstractCapability):
            raise UserError(
                f'The capability function {getattr(self.capability_func, "__name__", self.capability_func)!r} '
                f'returned {capability!r}; it must return a capability or None'
            )
        return await cast('AbstractCapability[AgentDepsT]', capability).for_run(ctx)


def as_capabilities(items: Sequence[Any]) -> list[AbstractCapability[Any]]:
    """The items of `capabilities=[...]` as capabilities: functions become `DynamicCapability`s.

    Raises:
        UserError: for an item that is neither a capability nor a function.
    """
    capabilities: list[AbstractCapability[Any]] = []
    for item in items:
        if isinstance(item, AbstractCapability):
            capabilities.append(cast('AbstractCapability[Any]', item))
        elif callable(item):
            capabilities.append(DynamicCapability[Any](cast('CapabilityFunc[Any]', item)))
        else:
            raise UserError(f'{item!r} is not a capability: pass an AbstractCapability or a function returning one')
    return capabilities
