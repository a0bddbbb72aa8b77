"""The narrow interfaces through which a run reaches the outside world.

The agent graph never calls a model or a tool function directly. It asks its `RunPorts` for one model
request (with the model-request hooks around it), one tool execution (with the tool-execute hooks
around it), or, when tool calls are deferred, for their results. In-process runs use `DirectPorts`,
which performs the call right here. A durable workflow installs its own ports (with `use_ports`)
that run each call as an activity, so the very same graph code runs in both places.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator
from contextlib import AbstractAsyncContextManager, contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ._model_request_context import ModelRequestContext
from ._parts import ModelResponse, ToolCallPart
from ._processed_history import HistorySink, for_the_model

if TYPE_CHECKING:
    from ._agent_graph import RunCheckpoint
    from ._deferred import DeferredToolRequests, DeferredToolResults
    from ._instrumentation import InstrumentationSettings
    from ._run_context import RunContext
    from .capabilities import AbstractCapability
    from .models import StreamedResponse
    from .toolsets import AbstractToolset, ToolsetTool

__all__ = ('DirectPorts', 'RunPorts', 'current_ports', 'use_ports')


class RunPorts:
    """How a run performs model requests and tool executions. Subclass to bind them elsewhere."""

    async def request_model(
        self,
        ctx: RunContext[Any],
        request_context: ModelRequestContext,
        capability: AbstractCapability[Any],
        *,
        adopt: HistorySink | None = None,
    ) -> ModelResponse:
        """Make one model request, running the capability's model-request hooks around it.

        `adopt` is given the history the `before_model_request` hooks left, before the model gets it (with
        adjacent requests merged).
        """
        from .capabilities import run_with_model_request_hooks

        async def call(rc: ModelRequestContext) -> ModelResponse:
            return await rc.model.request(rc.messages, rc.model_settings, rc.model_request_parameters)

        return await run_with_model_request_hooks(capability, ctx, request_context, call, prepared=for_the_model(adopt))

    def request_model_stream(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> AbstractAsyncContextManager[StreamedResponse]:
        """Open a streamed model request (hooks are applied by the caller around the consumed stream)."""
        return request_context.model.request_stream(
            request_context.messages,
            request_context.model_settings,
            request_context.model_request_parameters,
            run_context=ctx,
        )

    async def execute_tool(
        self,
        ctx: RunContext[Any],
        call: ToolCallPart,
        tool: ToolsetTool[Any],
        args: dict[str, Any],
        capability: AbstractCapability[Any],
    ) -> Any:
        """Execute one validated tool call, running the capability's tool-execute hooks around it."""
        from .capabilities import run_with_tool_execute_hooks

        async def execute(validated: dict[str, Any]) -> Any:
            return await tool.toolset.call_tool(call.tool_name, validated, ctx, tool)

        return await run_with_tool_execute_hooks(
            capability, ctx, call=call, tool_def=tool.tool_def, args=args, execute=execute
        )

    def tool_calls_at_once(self, calls: int) -> int:
        """How many of `calls` independent tool calls of one model response run at once: all of them by default.

        The others wait in call order, and each starts as one running ends (see `agent._tool_fan_out`). A durable
        run bounds this, so a response asking for hundreds of calls does not start hundreds of activities at once.
        """
        return calls

    def tool_calls_to_run(self, calls: int) -> int:
        """How many of the `calls` tool calls of one model response run at all: all of them by default.

        The calls past that many, in call order, are answered with a retry prompt asking the model for fewer.
        """
        return calls

    async def await_deferred_results(
        self, ctx: RunContext[Any], requests: DeferredToolRequests
    ) -> DeferredToolResults | None:
        """Wait for results of deferred tool calls; `None` means the run cannot wait and must end instead."""
        return None

    def deferred_results_applied(self, requests: DeferredToolRequests, results: DeferredToolResults) -> None:
        """Told, once a step has its deferred calls' answers (from capabilities or the wait), what they were.

        Nothing by default; a durable run records who decided each call (see `workflows._decisions`).
        """

    @property
    def runs_event_stream_handler(self) -> bool:
        """Whether the run calls its event stream handler itself (a durable run has its activities call it)."""
        return True

    def instrumentation(self, settings: InstrumentationSettings, ctx: RunContext[Any]) -> InstrumentationSettings:
        """The settings a run's spans are recorded with: `settings` itself by default.

        A durable run's workflow code replays, so it substitutes a tracer that records each span it opens once,
        whatever the replays (see `workflows._run_spans`).
        """
        return settings

    def adapt_toolset(self, toolset: AbstractToolset[Any]) -> AbstractToolset[Any]:
        """The toolset the run uses in place of a leaf `toolset` of the agent (the leaf itself by default).

        A durable run replaces toolsets that reach the network to list their tools (MCP servers) with ones that
        list them through an activity.
        """
        return toolset

    def resumed_run(self) -> RunCheckpoint | None:
        """The checkpoint of a run to continue instead of starting a new one (`None`: start a new run).

        A durable run that continued as new in the middle of a turn passes on its checkpoint this way; the run
        then goes on with the same id, step count, usage and retries, from a history that ends with the request
        it was about to send.
        """
        return None

    @property
    def waits_in_process(self) -> bool:
        """Whether `wait_for_external_event` may wait in this process when no engine installed a waiter.

        Only in-process runs say yes. A run bound elsewhere (a durable workflow) says no: a wait in process would
        not be recorded, so a replay would ask again and a restart would lose it. Such a run's engine installs a
        waiter of its own with `agent.external_events.external_event_scope`; until it does, the wait is refused.
        """
        return False

    def ends_with_deferred_requests(self) -> bool:
        """Whether a run that stops waiting may end with `DeferredToolRequests` even if its output type lacks it.

        Durable runs whose approval policy ends the run on timeout say yes; in-process runs say no, so a
        missing `DeferredToolRequests` output type is reported as the mistake it is.
        """
        return False


class DirectPorts(RunPorts):
    """Ports for an in-process run: every call happens right here; deferred calls end the run."""

    @property
    def waits_in_process(self) -> bool:
        """An in-process run waits for external events in this process."""
        return True


_ports: ContextVar[RunPorts | None] = ContextVar('agent_run_ports', default=None)
_DIRECT = DirectPorts()


def current_ports() -> RunPorts:
    """The ports installed for the current context, or the in-process default."""
    return _ports.get() or _DIRECT


@contextmanager
def use_ports(ports: RunPorts) -> Generator[None, None, None]:
    """Install `ports` for runs started in the current context."""
    token = _ports.set(ports)
    try:
        yield
    finally:
        # Closed from another context (an evicted workflow's coroutine is closed by the worker): that
        # context is being discarded, so there is nothing to restore.
        with contextlib.suppress(ValueError):
            _ports.reset(token)
