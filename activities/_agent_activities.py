"""The activities of one registered agent: its model requests and its tool executions.

Activity names are stable and explicit, so renaming Python code never breaks a run in flight:

- `agent.<agent>.model_request`: one model request, with the model-request hooks around it. Transient I/O failures
  are retried; other exceptions from user code fail the run at once (see `activities._transient`).
- `agent.<agent>.call_tool`: one tool execution, with the tool-execute hooks around it.
- `agent.<agent>.notify_deferred`: tells the agent's notifier that tool calls wait for results.
- `agent.<agent>.toolset.<id>.list_tools`: the tools of a networked toolset (an MCP server with that `id`).

With an event stream handler (or a capability watching the event stream, like `ProcessEventStream`), the model
request is streamed from the provider and the handler gets its events as they arrive; tool activities pass it
their call and result events.

The I/O-wrapping hooks on the activity side (all of them unless a capability moved some to the workflow
with `hook_sides`) run here, next to the call they wrap. So do the `Instrumentation` capability's `chat` and
`execute_tool` spans: each attempt of an activity records its own, which takes over the attempt's `RunActivity` span
when the worker traces (see `workflows._tracing`).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import replace
from datetime import timedelta
from typing import Any, ParamSpec, TypeVar

from pydantic import ValidationError
from temporalio import activity
from temporalio.client import Client

from agent import Agent
from agent._delegation import runs_redirected
from agent._durable_unit import durable_unit_scope
from agent._model_request_context import ModelRequestContext
from agent._parts import ModelMessage
from agent._ports import DirectPorts
from agent._processed_history import for_the_model
from agent._run_context import RunContext
from agent._serialization import serializable_deps_adapter
from agent._tool_def import ToolDefinition
from agent.capabilities import CombinedCapability, run_with_model_request_hooks
from agent.capabilities._instrumentation import instrumentation_for_run
from agent.exceptions import UserError
from agent.models import Model, infer_model
from agent.usage import RunUsage

from ._carried_contents import with_carried_contents
from ._delegation import Delegate, Delegations, MessagesNeeded, child_messages
from ._errors import configuration_error, to_application_error
from ._event_streams import EventStreamHandler, HandlerStream, activity_handler, streamed_request, tool_events
from ._handoff import handoff_activities, read_conversation
from ._history_recovery import recover_from_history
from ._message_store import message_hash, worker_store
from ._names import (
    call_tool_activity_name,
    get_instructions_activity_name,
    list_tools_activity_name,
    model_request_activity_name,
    notify_activity_name,
)
from ._processed_history import HistoryRecorder
from ._redaction import remember_model_key
from ._remote_toolsets import RemoteToolsets
from ._request_resolution import resolve_request
from ._run_capabilities import RunCapabilities
from ._run_toolsets import run_toolset
from ._stickiness import release_stickiness_on_retry
from ._tool_result_size import check_result_size
from ._tool_results import result_kind
from ._transient import model_request_error
from ._types import (
    ActivityRunContext,
    CallToolInput,
    CallToolOutput,
    DeferredNotice,
    ModelRequestInput,
    ModelRequestOutput,
)

__all__ = ('agent_activities', 'with_heartbeats')

T = TypeVar('T')
P = ParamSpec('P')


def agent_activities(
    name: str,
    agent: Agent[Any, Any],
    *,
    notifier: Callable[[DeferredNotice], Awaitable[None]] | None = None,
    remote: RemoteToolsets | None = None,
    event_stream_handler: EventStreamHandler | None = None,
    retry_user_errors: bool = False,
    served: Callable[[Any], str | None] = lambda agent: None,
    version: str | None = None,
) -> list[Callable[..., Any]]:
    """Build the activities of agent `name` (once per worker), with its notifier's if it has one.

    `remote` holds the agent's networked toolsets (MCP servers) for the worker: each gets a list-tools activity,
    and every activity uses their live connections. The caller closes it when the worker stops.
    `event_stream_handler` receives the events of each model request (streamed) and tool call as they happen,
    through the capabilities' `wrap_run_event_stream` (see `activities._event_streams`).
    A model request's exception from user code (a history processor, a model-request hook) that is not transient
    I/O fails the run at once, unless `retry_user_errors` keeps it retrying until fixed (see `activities._transient`).
    `served` names the agents of the worker (`None` for another): a tool's run of one of them becomes a child run of
    the workflow (see `activities._delegation`).
    `version` is the agent's version on this worker, which each model request's output carries for the run to record
    (see `workflows._agent_version`).
    """
    registered = list(agent.capabilities)
    # `Agent(instrument=...)` / `Agent.instrument_all()` (as it stands when the worker is built) trace the model
    # requests and tool calls here, as in-process; the workflow records the run's span (see `workflows._run_spans`).
    registered[:0] = instrumentation_for_run(agent, registered)
    combined = CombinedCapability(registered)
    # Only the I/O hooks on the activity side run here; the workflow runs the rest (see agent.capabilities).
    # The toolset, though, is the run's whole one: capabilities' toolsets and wrappers included, asked for its
    # per-run and per-step instances (see `activities._run_toolsets`); and the event stream passes through the
    # capabilities' `wrap_run_event_stream`, as the events happen here (see `activities._event_streams`).
    capabilities = RunCapabilities(combined)
    deps_adapter = (
        serializable_deps_adapter(agent.deps_type, agent_name=name) if agent.deps_type is not type(None) else None
    )
    ports = DirectPorts()

    def resolve_model(override: str | None) -> Model:
        """The request's model, its key remembered for redaction (raises `UserError` for a model it cannot build)."""
        model = override or agent.model
        if model is None:
            raise UserError(f'Agent {name!r} has no model: register it with one or pass "model" in the run input.')
        resolved = infer_model(model)  # UserError for an unknown model or provider, or a missing key
        remember_model_key(resolved)
        return resolved

    def deps_of(raw: Any) -> Any:
        return deps_adapter.validate_python(raw) if deps_adapter is not None and raw is not None else raw

    def run_context(ctx_in: ActivityRunContext, model: Model | None = None) -> RunContext[Any]:
        """The activity's `RunContext`, with `model`, else the model the run named, else the agent's own.

        Raises:
            ApplicationError: non-retryable, when the model cannot be built or the deps do not validate: every
                attempt would fail the same way, and callers may call this before their own conversion.
        """
        try:
            if model is None and (ctx_in.model is not None or agent.model is not None):
                model = resolve_model(ctx_in.model)
            deps = deps_of(ctx_in.deps)
        except UserError as exc:
            raise configuration_error(exc) from exc
        except ValidationError as exc:
            problem = UserError(f"The run's deps do not validate as agent {name!r}'s deps_type: {exc}")
            raise configuration_error(problem) from exc
        return ctx_in.to_run_context(agent=agent, model=model, deps=deps)  # pyright: ignore[reportArgumentType]

    @activity.defn(name=model_request_activity_name(name))
    @durable_unit
    async def model_request(inp: ModelRequestInput) -> ModelRequestOutput:
        release_stickiness_on_retry()
        try:
            resolved = resolve_request(inp)
            if resolved is None and await recover_from_history(worker_store, resolve_request):
                resolved = resolve_request(inp)  # the run's history had what this worker lacked
            if resolved is None:
                # This worker lacks something the input names: the workflow sends the request again in full.
                return ModelRequestOutput(response=None, messages_missing=True, agent_version=version)
            messages, parameters = resolved
            # Tool results a long conversation carried to this run by reference, put back for the model.
            messages = await with_carried_contents(messages, worker_store, _client_or_none(), read_conversation)
            # Inside the conversion: an unknown model or a missing key must fail the run, not retry forever.
            model = resolve_model(inp.model)
            ctx = run_context(replace(inp.ctx, model_settings=inp.model_settings), model)
            request_context = ModelRequestContext(
                model=model,
                messages=messages,
                model_settings=inp.model_settings,  # pyright: ignore[reportArgumentType]
                model_request_parameters=parameters,
            )
            capability = await capabilities.for_activity(ctx)
            run_capability = await capabilities.for_run(ctx)
            # The history the hooks leave goes back to the workflow, which adopts it (see `_processed_history`).
            recorder = HistoryRecorder(messages) if 'before_model_request' in capability.hook_names() else None
            handler = activity_handler(event_stream_handler, run_capability)
            if handler is None:
                response = await with_heartbeats(ports.request_model(ctx, request_context, capability, adopt=recorder))
            else:
                async with HandlerStream(handler, ctx, run_capability) as events:
                    call = streamed_request(ctx, events)
                    response = await with_heartbeats(
                        run_with_model_request_hooks(
                            capability, ctx, request_context, call, prepared=for_the_model(recorder)
                        )
                    )
        except Exception as exc:
            if (converted := model_request_error(exc, retry_user_errors=retry_user_errors)) is not None:
                raise converted from None  # history gets the fitted causes; the log must not show the original's key
            raise
        # Stamped as the run will stamp it, and kept here, so the next request can name it by hash.
        response.run_id = response.run_id or inp.ctx.run_id
        response.conversation_id = response.conversation_id or inp.ctx.conversation_id
        key = message_hash(response)
        worker_store.messages.put(key, response)
        processed = recorder.result() if recorder is not None else None
        return ModelRequestOutput(response, response_key=key, processed_history=processed, agent_version=version)

    @activity.defn(name=call_tool_activity_name(name))
    @durable_unit
    async def call_tool(inp: CallToolInput) -> CallToolOutput:
        release_stickiness_on_retry()
        before = inp.ctx.usage + RunUsage()  # a copy: the tool may add to ctx.usage in place
        ctx = run_context(inp.ctx)
        try:
            run_capability = await capabilities.for_run(ctx)
            capability = await capabilities.for_activity(ctx)
            handler = activity_handler(event_stream_handler, run_capability)
            async with run_toolset(agent, run_capability, remote, ctx) as toolset:
                tools = await toolset.get_tools(ctx)
                tool = tools.get(inp.call.tool_name)
                if tool is None:
                    raise UserError(f'Agent {name!r} has no tool {inp.call.tool_name!r} on this worker.')
                timeout, attempt = tool.tool_def.timeout, activity.info().start_to_close_timeout
                if timeout is not None and attempt is not None and timeout >= attempt.total_seconds():
                    # Function tools are checked at build_worker; a toolset's tool is only known now.
                    activity.logger.warning(
                        'Tool %r has timeout=%s, but this activity attempt may take only %s: the attempt can time '
                        'out first and be retried. Give the tool a longer start_to_close_timeout.',
                        inp.call.tool_name,
                        timeout,
                        attempt,
                    )

                read: dict[int, list[ModelMessage]] = {}  # messages read from child runs (`MessagesNeeded`)

                async def execute() -> Any:
                    nonlocal ctx
                    while True:
                        try:
                            with runs_redirected(Delegations(served, inp.delegated, read)):
                                result = await ports.execute_tool(ctx, inp.call, tool, inp.args, capability)
                            break
                        except MessagesNeeded as needed:
                            # The tool reads a child run's messages: read them there, then run the tool again (from
                            # the usage it started with: the child's is added again).
                            read[needed.index] = await child_messages(activity.client(), inp.delegated[needed.index])
                            ctx = replace(ctx, usage=before + RunUsage())
                    # Refused here, before it travels: a result over the limit would leave the run unreadable.
                    check_result_size(result, inp.max_result_bytes)
                    return result

                try:
                    if handler is None:
                        result = await with_heartbeats(execute())
                    else:
                        async with HandlerStream(handler, ctx, run_capability) as events:
                            result = await with_heartbeats(tool_events(events, inp.call, execute))
                except Delegate as delegation:
                    # The tool runs again with the run's outcome; this round's usage is counted on that one.
                    return CallToolOutput(None, delegation=delegation.request)
            kind = result_kind(result)
            # A plain result is kept here too, so the next model request can name it instead of resending it.
            key = worker_store.add_content(result) if kind == 'value' else None
            return CallToolOutput(result, usage_added(before, ctx.usage), content_key=key, result_kind=kind)
        except Exception as exc:
            if (converted := to_application_error(exc)) is not None:
                raise converted from exc
            raise

    activities: list[Callable[..., Any]] = [model_request, call_tool, *handoff_activities(name)]
    if remote is not None:
        for toolset_id in remote.ids:
            activities.extend(_toolset_activities(name, toolset_id, remote, run_context))
    if notifier is not None:

        @activity.defn(name=notify_activity_name(name))
        @durable_unit
        async def notify_deferred(notice: DeferredNotice) -> None:
            await notifier(notice)

        activities.append(notify_deferred)
    return activities


def _toolset_activities(
    name: str,
    toolset_id: str,
    remote: RemoteToolsets,
    run_context: Callable[[ActivityRunContext], RunContext[Any]],
) -> list[Callable[..., Any]]:
    """The list-tools and get-instructions activities of one networked toolset."""

    @activity.defn(name=list_tools_activity_name(name, toolset_id))
    @durable_unit
    async def list_tools(ctx_in: ActivityRunContext) -> list[ToolDefinition]:
        try:
            tools = await remote.get_tools(toolset_id, run_context(ctx_in))
        except Exception as exc:
            if (converted := to_application_error(exc)) is not None:
                raise converted from None  # history gets the fitted causes; the log must not show the original's key
            raise
        return [tool.tool_def for tool in tools.values()]

    @activity.defn(name=get_instructions_activity_name(name, toolset_id))
    @durable_unit
    async def get_instructions(ctx_in: ActivityRunContext) -> str | None:
        try:
            return await remote.get_instructions(toolset_id, run_context(ctx_in))
        except Exception as exc:
            if (converted := to_application_error(exc)) is not None:
                raise converted from None  # history gets the fitted causes; the log must not show the original's key
            raise

    return [list_tools, get_instructions]


def durable_unit(function: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, Coroutine[Any, Any, T]]:
    """Run an activity's body as a durable unit (`agent._durable_unit`): the user code it runs (tools, hooks, the
    model request, a notifier) may not wait for an external event, which only the workflow can record; a wait
    started there fails with a `UserError` that says to use `RequestInput`."""

    @functools.wraps(function)  # the SDK reads the activity's argument types through `__wrapped__`
    async def unit(*args: P.args, **kwargs: P.kwargs) -> T:
        with durable_unit_scope():
            return await function(*args, **kwargs)

    return unit


def _client_or_none() -> Client | None:
    """The activity's client, or `None` where there is none (an activity run outside a worker, as in tests)."""
    try:
        return activity.client()
    except RuntimeError:
        return None


def usage_added(before: RunUsage, after: RunUsage) -> RunUsage:
    """What was counted between two usage snapshots."""
    added = RunUsage(
        requests=after.requests - before.requests,
        tool_calls=after.tool_calls - before.tool_calls,
        input_tokens=after.input_tokens - before.input_tokens,
        output_tokens=after.output_tokens - before.output_tokens,
        cache_read_tokens=after.cache_read_tokens - before.cache_read_tokens,
        cache_write_tokens=after.cache_write_tokens - before.cache_write_tokens,
        reasoning_tokens=after.reasoning_tokens - before.reasoning_tokens,
    )
    added.details = {k: v - before.details.get(k, 0) for k, v in after.details.items() if v != before.details.get(k, 0)}
    return added


HEARTBEATS_PER_TIMEOUT = 4
"""Beats sent within one heartbeat timeout: three can be lost or late before the attempt is presumed dead."""

HEARTBEAT_WITHOUT_TIMEOUT = 0.5
"""Seconds between beats for an activity without a heartbeat timeout (beats still carry cancellation to it)."""

HEARTBEAT_THROTTLE = timedelta(seconds=0.25)
"""The worker's cap on how long the SDK may hold a beat back before sending it (see `build_worker`)."""


def heartbeat_interval(heartbeat_timeout: timedelta | None) -> float:
    """Seconds between the beats of an activity with this heartbeat timeout."""
    if heartbeat_timeout is None:
        return HEARTBEAT_WITHOUT_TIMEOUT
    return max(HEARTBEAT_THROTTLE.total_seconds(), heartbeat_timeout.total_seconds() / HEARTBEATS_PER_TIMEOUT)


async def with_heartbeats(operation: Awaitable[T]) -> T:
    """Await `operation`, heartbeating meanwhile so a dead worker is noticed within the heartbeat timeout."""
    info = activity.info()
    if info.is_local:
        return await operation  # a local activity lives and dies with its workflow task: nothing to beat for
    interval = heartbeat_interval(info.heartbeat_timeout)
    task = asyncio.ensure_future(operation)
    try:
        while True:
            # A beat first: the server then counts the timeout from the start of the call.
            activity.heartbeat()
            done, _ = await asyncio.wait({task}, timeout=interval)
            if done:
                return task.result()
    finally:
        if not task.done():
            task.cancel()
