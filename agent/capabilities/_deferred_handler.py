"""`HandleDeferredToolCalls`: answers calls that need approval or external execution without ending the run.

The run asks its capabilities first (`handle_deferred_tool_calls`, each one seeing the calls the ones before it
left unresolved) and only then its ports: in-process that ends the run with `DeferredToolRequests`, durably the
workflow waits for a human. The hook steers the run, so in a durable run it is a workflow-side hook: the handler
runs in the workflow and must be deterministic (no I/O, no clocks; decide from the requests and the context).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent._deferred import DeferredToolRequests, DeferredToolResults
from agent._run_context import RunContext
from agent._threads import call_maybe_async
from agent._tool import AgentDepsT

from ._abstract import AbstractCapability

if TYPE_CHECKING:
    from agent._ports import RunPorts

__all__ = ('HandleDeferredToolCalls', 'resolve_deferred_tool_calls')


@dataclass
class HandleDeferredToolCalls(AbstractCapability[AgentDepsT]):
    """Resolves deferred tool calls during the run with a function.

    ```python
    def approve_reads(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        reads = [c for c in requests.approvals if c.tool_name == 'read']
        return requests.build_results(approvals={c.tool_call_id: True for c in reads})

    agent = Agent('openai:gpt-5.2', capabilities=[HandleDeferredToolCalls(approve_reads)])
    ```
    """

    handler: Callable[
        [RunContext[AgentDepsT], DeferredToolRequests],
        DeferredToolResults | Awaitable[DeferredToolResults | None] | None,
    ]
    """Gets the context and the unresolved requests (sync or async) and returns results for some or all of them,
    or `None` to leave them to the next capability (and then to a human)."""

    @classmethod
    def get_serialization_name(cls) -> str | None:
        # Takes a function, which an agent spec cannot express.
        return None

    async def handle_deferred_tool_calls(
        self, ctx: RunContext[AgentDepsT], *, requests: DeferredToolRequests
    ) -> DeferredToolResults | None:
        return await call_maybe_async(self.handler, ctx, requests)


async def resolve_deferred_tool_calls(
    capability: AbstractCapability[Any], ports: RunPorts, ctx: RunContext[Any], requests: DeferredToolRequests
) -> DeferredToolResults | None:
    """Results for `requests` from the capabilities, then from the ports for what they left; `None` for none.

    When the capabilities resolve only some calls and the ports cannot wait for the rest, the partial results are
    returned: the resolved calls go on, and the rest come back as deferred again on the next round.
    """
    resolved = await capability.handle_deferred_tool_calls(ctx, requests=requests)
    if resolved is None or not resolved.tool_call_ids:
        return await ports.await_deferred_results(ctx, requests)
    remaining = requests.remaining(resolved)
    if remaining is None:
        return resolved
    rest = await ports.await_deferred_results(ctx, remaining)
    if rest is not None:
        resolved.update(rest)
    return resolved
