"""Setting up a run: resolving the model, output, capabilities and toolsets, and wiring the run hooks.

`wrap_run` must see the whole run even when the caller drives it node by node with `iter()`. So the
run hooks execute in their own task whose innermost handler waits for the graph to finish: the
`AgentRun` reports its end (or its error) to that task and takes the hooks' verdict as the result.
A `wrap_run` that recovers from an error therefore works the same with `run()` and `iter()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import sys
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._agent_graph import GraphAgentDeps, GraphAgentState, UserPromptNode
from ._content import UserContent
from ._deferred import DeferredToolResults
from ._env import uuid7
from ._event_handoff import EventHandoff
from ._instructions import flatten_instructions
from ._parts import ModelMessage
from ._ports import RunPorts, current_ports
from ._run_context import PendingMessage, RunContext
from .capabilities import CombinedCapability, run_with_run_hooks
from .capabilities._deferred_loading import loaded_capability_ids, render_deferred_capability_catalog
from .capabilities._instrumentation import instrumentation_for_run
from .capabilities._registry import register_capabilities
from .concurrency import limiter_slot
from .exceptions import UserError
from .output import OutputSchema
from .run import AgentRun, AgentRunResult
from .settings import ModelSettings, merge_model_settings
from .toolsets import CombinedToolset, as_toolset
from .toolsets._deferred_capability_loader import DeferredCapabilityLoaderToolset
from .usage import RunUsage, UsageLimits

if TYPE_CHECKING:
    from .agent import Agent
    from .capabilities import AbstractCapability
    from .models import Model
    from .toolsets import AbstractToolset

__all__ = ('RunSetup', 'assemble_toolset', 'build_run')


@dataclass(kw_only=True)
class RunSetup:
    """The arguments of one run."""

    agent: Agent[Any, Any]
    user_prompt: str | Sequence[UserContent] | None
    output_type: Any
    message_history: Sequence[ModelMessage] | None
    deferred_tool_results: DeferredToolResults | None
    conversation_id: str | None
    model: Model | str | None
    instructions: Any
    deps: Any
    model_settings: ModelSettings | None
    usage_limits: UsageLimits | None
    usage: RunUsage | None
    metadata: dict[str, Any] | Callable[..., dict[str, Any]] | None
    toolsets: Sequence[Any] | None
    capabilities: Sequence[Any] | None
    builtin_tools: Sequence[Any] | None
    event_stream_handler: Callable[[Any, Any], Any] | None
    output_retries: int | None = None
    """This run's output retry budget (from `retries=` or the run's spec), if it replaces the agent's."""


def _resolve_conversation_id(explicit: str | None, history: Sequence[ModelMessage]) -> str:
    if explicit is not None and explicit != 'new':
        return explicit
    if explicit is None:
        for message in reversed(history):
            if message.conversation_id:
                return message.conversation_id
    return uuid7()


def _output_schema(setup: RunSetup) -> OutputSchema:
    agent = setup.agent
    if setup.output_type is None:
        return agent._output_schema  # pyright: ignore[reportPrivateUsage]
    if agent._output_validators:  # pyright: ignore[reportPrivateUsage]
        raise UserError('Cannot set a custom run `output_type` when the agent has output validators')
    return OutputSchema.build(setup.output_type)


async def _metadata(value: Any, ctx: RunContext[Any]) -> dict[str, Any] | None:
    if value is None:
        return None
    if callable(value):
        result: Any = value(ctx)
        if inspect.isawaitable(result):
            result = await result
        return result
    return dict(value)


def assemble_toolset(
    agent: Agent[Any, Any], capability: AbstractCapability[Any], extra: Sequence[Any] | None, *, deferred: bool = False
) -> AbstractToolset[Any]:
    """The run's toolset: the agent's and capabilities' toolsets combined, prepared, then wrapped by capabilities.

    With deferred capabilities (`deferred=True`) the `load_capability` tool is added outermost, where no
    capability's toolset wrapper can rename, filter or re-tag it.
    """
    parts: list[AbstractToolset[Any]] = [as_toolset(t) for t in agent.toolsets]
    if (cap_toolset := capability.get_toolset()) is not None:
        parts.append(as_toolset(cap_toolset))
    parts.extend(as_toolset(t) for t in extra or [])
    ports = current_ports()
    if type(ports).adapt_toolset is not RunPorts.adapt_toolset:
        # Only ports that replace toolsets rebuild the tree: in-process runs keep the agent's own objects.
        parts = [part.visit_and_replace(ports.adapt_toolset) for part in parts]
    toolset: AbstractToolset[Any] = CombinedToolset(parts)
    prepare = agent._prepare_tools  # pyright: ignore[reportPrivateUsage]
    if prepare is not None:
        toolset = toolset.prepared(prepare)
    toolset = capability.get_wrapper_toolset(toolset) or toolset
    return DeferredCapabilityLoaderToolset(toolset) if deferred else toolset


class _RunHooksBridge:
    """Runs the run-level hooks in a task around a graph the caller drives (see the module docstring)."""

    def __init__(self, capability: AbstractCapability[Any], ctx: RunContext[Any], run: AgentRun[Any, Any]) -> None:
        self.capability = capability
        self.ctx = ctx
        self.run = run
        self.outcome: asyncio.Future[AgentRunResult[Any]] = asyncio.get_running_loop().create_future()
        self.task: asyncio.Task[AgentRunResult[Any]] | None = None

    async def start(self) -> None:
        # Resolved when the innermost handler starts (the graph may run) or the hooks finish on their own.
        # A future with callbacks rather than asyncio.wait(), which a deterministic workflow does not allow.
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def mark_ready(*_: Any) -> None:
            if not ready.done():
                ready.set_result(None)

        shares_context = bool({'before_run', 'wrap_run'} & self.capability.hook_names())

        async def handler() -> AgentRunResult[Any]:
            if shares_context:
                # What the run hooks set in context variables reaches the nodes (see `AgentRun._in_hooks_context`).
                self.run._hooks_context = contextvars.copy_context()  # pyright: ignore[reportPrivateUsage]
            mark_ready()
            return await asyncio.shield(self.outcome)

        self.task = asyncio.ensure_future(run_with_run_hooks(self.capability, self.ctx, handler))
        self.task.add_done_callback(mark_ready)
        await ready
        if self.task.done():
            # The hooks finished without running the graph (a wrap_run that answered by itself, or an error).
            self.run._set_result(self.task.result())  # pyright: ignore[reportPrivateUsage]
        self.run._finish = self.finish  # pyright: ignore[reportPrivateUsage]

    async def finish(
        self, *, result: AgentRunResult[Any] | None = None, error: BaseException | None = None
    ) -> AgentRunResult[Any]:
        assert self.task is not None
        if not self.outcome.done():
            if error is not None:
                self.outcome.set_exception(error)
            else:
                assert result is not None
                self.outcome.set_result(result)
        return await self.task

    def abandon(self) -> None:
        """Stop the hooks task without waiting for it (when nothing may be awaited any more)."""
        if self.task is not None and not self.task.done():
            self.task.cancel()

    async def close(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        if self.outcome.done() and not self.outcome.cancelled():
            self.outcome.exception()  # mark retrieved so asyncio doesn't warn about it


def _refuse_forced_tool_choice(*layers: Any) -> None:
    """Refuse a `tool_choice` that forces a function tool call on every step: the run could never end.

    Settings computed per step (callables, capabilities) may force a tool on some steps, so only fixed layers count.

    Raises:
        UserError: for `'required'` or a list of tool names in the model's, agent's or run's fixed settings.
    """
    fixed = merge_model_settings(*(layer for layer in layers if not callable(layer)))
    choice = (fixed or {}).get('tool_choice')
    if choice == 'required' or isinstance(choice, list):
        raise UserError(
            f'`tool_choice={choice!r}` prevents the agent from producing a final response because output tools are '
            'excluded (it is in the model, agent or run settings and forces a function tool call on every step). '
            "Use `ToolOrOutput` to limit the tools and still end, return a callable from a capability's "
            '`get_model_settings()` to vary `tool_choice` per step, or use `agent.direct.model_request` for a single '
            'model call.'
        )


@asynccontextmanager
async def build_run(setup: RunSetup) -> AsyncGenerator[AgentRun[Any, Any], None]:
    """Set up a run and yield it, ready to be driven.

    With `Agent(max_concurrency=...)` the run first waits for a slot of the agent's limiter and holds it until the
    run is left.
    """
    agent = setup.agent
    limiter = agent._concurrency_limiter  # pyright: ignore[reportPrivateUsage]
    async with limiter_slot(limiter, f'agent:{agent.name or "agent"}'), _build_run(setup) as agent_run:
        yield agent_run


@asynccontextmanager
async def _build_run(setup: RunSetup) -> AsyncGenerator[AgentRun[Any, Any], None]:
    agent = setup.agent
    model = agent._resolve_model(setup.model)  # pyright: ignore[reportPrivateUsage]
    _refuse_forced_tool_choice(model.settings, agent.model_settings, setup.model_settings)
    output_schema = _output_schema(setup)
    history = list(setup.message_history or [])
    resumed = current_ports().resumed_run()
    state = GraphAgentState(
        message_history=history,
        usage=setup.usage if setup.usage is not None else RunUsage(),
        run_id=uuid7() if resumed is None else resumed.run_id,
        conversation_id=_resolve_conversation_id(setup.conversation_id, history),
    )
    if resumed is not None:
        state.usage = resumed.usage
        state.run_step, state.retries, state.tool_retries = resumed.run_step, resumed.retries, resumed.tool_retries
    pending: list[PendingMessage] = []
    capability_list = [*agent.capabilities, *(setup.capabilities or [])]
    # `Agent(instrument=...)` / `Agent.instrument_all()` add the Instrumentation capability, outermost.
    capability_list[:0] = instrumentation_for_run(agent, capability_list)
    base_ctx = RunContext[Any](
        deps=setup.deps,
        model=model,
        usage=state.usage,
        agent=agent,
        prompt=setup.user_prompt,
        messages=history,
        run_id=state.run_id,
        conversation_id=state.conversation_id,
        pending_messages=pending,
    )

    async def compute_metadata(ctx: RunContext[Any]) -> dict[str, Any] | None:
        merged = {
            **(await _metadata(agent._metadata, ctx) or {}),  # pyright: ignore[reportPrivateUsage]
            **(await _metadata(setup.metadata, ctx) or {}),
        }
        return merged or None

    metadata = await compute_metadata(base_ctx)
    # Capabilities building their per-run instance see the run's resolved metadata.
    base_ctx.metadata = metadata or None
    capability = await CombinedCapability(capability_list).for_run(base_ctx)
    registry = register_capabilities(capability)
    deferred = any(cap.defer_loading is True for cap in registry.values())
    toolset = await assemble_toolset(agent, capability, setup.toolsets, deferred=deferred).for_run(base_ctx)
    deps = GraphAgentDeps[Any, Any](
        agent=agent,
        user_deps=setup.deps,
        prompt=setup.user_prompt,
        new_message_index=len(history) if resumed is None else resumed.new_message_index,
        model=model,
        run_model_settings=setup.model_settings,
        usage_limits=setup.usage_limits or UsageLimits(),
        max_output_retries=(
            setup.output_retries if setup.output_retries is not None else agent._max_result_retries  # pyright: ignore[reportPrivateUsage]
        ),
        end_strategy=agent.end_strategy,
        output_schema=output_schema,
        output_validators=list(agent._output_validators),  # pyright: ignore[reportPrivateUsage]
        capability=capability,
        toolset=toolset,
        instructions=[
            *agent._instructions,  # pyright: ignore[reportPrivateUsage]
            *flatten_instructions(capability.get_instructions()),
            *([render_deferred_capability_catalog] if deferred else []),
            *flatten_instructions(setup.instructions),
        ],
        system_prompts=list(agent._system_prompts),  # pyright: ignore[reportPrivateUsage]
        settings_layers=[model.settings, agent.model_settings, capability.get_model_settings()],
        native_tools=[*agent._native_tools, *capability.get_builtin_tools(), *(setup.builtin_tools or [])],  # pyright: ignore[reportPrivateUsage]
        ports=current_ports(),
        metadata=metadata,
        recompute_metadata=(
            compute_metadata if callable(agent._metadata) or callable(setup.metadata) else None  # pyright: ignore[reportPrivateUsage]
        ),
        pending_messages=pending,
        deferred_tool_results=setup.deferred_tool_results,
        prepare_output_tools=agent._prepare_output_tools,  # pyright: ignore[reportPrivateUsage]
        validation_context=agent._validation_context,  # pyright: ignore[reportPrivateUsage]
        capabilities=registry,
        loaded_capability_ids=loaded_capability_ids(history) if deferred else set[str](),
    )
    ctx = deps.run_context(state)
    agent_run = AgentRun[Any, Any](state, deps, UserPromptNode(setup.user_prompt))
    await toolset.__aenter__()
    pump: EventHandoff | None = None
    handler = setup.event_stream_handler
    if handler is None and 'wrap_run_event_stream' in capability.hook_names():
        from .capabilities._process_event_stream import consume_event_stream

        # A capability watching the event stream (e.g. `ProcessEventStream`) turns streaming on by itself.
        handler = consume_event_stream
    if handler is not None and current_ports().runs_event_stream_handler:
        pump = EventHandoff(handler, capability, ctx)
        deps.event_sink = pump.emit
    bridge = _RunHooksBridge(capability, ctx, agent_run)
    try:
        await bridge.start()
        yield agent_run
    except GeneratorExit:
        # The coroutine running us is being closed (e.g. a workflow evicted from a worker's cache): nothing
        # may be awaited any more, so background tasks are cancelled and the toolset is left to the GC. A run
        # dropped from memory is closed by the GC, which may have closed its event loop first: the tasks go too.
        with contextlib.suppress(RuntimeError):
            bridge.abandon()
            if pump is not None:
                pump.cancel()
        raise
    except BaseException:
        await _finish(bridge, pump)
        await toolset.__aexit__(*sys.exc_info())
        raise
    await _finish(bridge, pump)
    await toolset.__aexit__(None, None, None)


async def _finish(bridge: _RunHooksBridge, pump: EventHandoff | None) -> None:
    await bridge.close()
    if pump is not None:
        await pump.finish()
