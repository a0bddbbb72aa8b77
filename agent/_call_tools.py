"""Handling a model response's tool calls: function tools (parallel or sequential), deferred calls, and their order.

Output tool calls and text output are handled by `_call_output`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

from ._agent_graph_state import GraphAgentDeps, GraphAgentState
from ._call_output import handle_output_calls, handle_text
from ._content import ToolReturn
from ._deferred import DeferredToolRequests, DeferredToolResult, ToolApproved, ToolDenied
from ._env import now_utc
from ._events import FunctionToolCallEvent, FunctionToolResultEvent
from ._parts import ModelRequest, ModelRequestPart, RetryPromptPart, ToolCallPart, ToolReturnPart, UserPromptPart
from ._tool_fan_out import past_cap, run_in_lanes
from ._tool_manager import ToolManager
from ._typed_tool_parts import LoadCapabilityReturnPart
from ._unusable_response import check_incomplete_tool_call
from .capabilities._deferred_handler import resolve_deferred_tool_calls
from .exceptions import (
    ApprovalRequired,
    CallDeferred,
    ModelRetry,
    ToolFailed,
    ToolRetriesExhausted,
    ToolRetryError,
    UserError,
)
from .graph import End
from .result import FinalResult

if TYPE_CHECKING:
    from ._agent_graph import CallToolsNode

__all__ = ('handle_response',)

TOOL_NOT_EXECUTED = 'Tool not executed - a final result was already processed.'


@dataclass
class _StepResults:
    """What handling the tool calls of one response produced.

    The request answering the calls lists their results phase by phase, as Pydantic AI does: output tools, then the
    function (and unknown, and resumed deferred) tools, then the deferred tools' validation failures, then the calls
    a deferred-call handler answered; within a phase in call order, each phase's `ToolReturn` content after its
    results.
    """

    done: list[ModelRequestPart] = field(default_factory=list[ModelRequestPart])
    """The results so far, in the order the request lists them."""
    parts: dict[str, ModelRequestPart] = field(default_factory=dict[str, ModelRequestPart])
    """The results of the phase under way, by call id (its calls finish in any order)."""
    extra: list[ModelRequestPart] = field(default_factory=list[ModelRequestPart])
    deferred_calls: list[ToolCallPart] = field(default_factory=list[ToolCallPart])
    approvals: list[ToolCallPart] = field(default_factory=list[ToolCallPart])
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    announced: set[str] = field(default_factory=set[str])
    """Calls whose `FunctionToolCallEvent` was sent (a deferred call is validated, then run once resolved)."""
    unknown_failed: set[str] = field(default_factory=set[str])
    """Unknown tool names already counted against their retries in this step."""

    def defer(self, call: ToolCallPart, *, approval: bool, metadata: dict[str, Any] | None) -> None:
        (self.approvals if approval else self.deferred_calls).append(call)
        if metadata:
            self.metadata[call.tool_call_id] = metadata

    @property
    def has_deferred(self) -> bool:
        return bool(self.deferred_calls or self.approvals)

    def flush(self, calls: Sequence[ToolCallPart]) -> None:
        """End a phase: its results in call order, then its extra parts; its deferred calls in call order too."""
        self.done.extend(self.parts.pop(c.tool_call_id) for c in calls if c.tool_call_id in self.parts)
        self.done.extend(self.extra)
        self.extra = []
        position = {c.tool_call_id: i for i, c in enumerate(calls)}
        for waiting in (self.deferred_calls, self.approvals):
            # Calls deferred by earlier phases keep their place; this phase's go after them in call order.
            waiting.sort(key=lambda c: position.get(c.tool_call_id, -1))

    def take_deferred(self) -> DeferredToolRequests:
        requests = DeferredToolRequests(calls=self.deferred_calls, approvals=self.approvals, metadata=self.metadata)
        self.deferred_calls, self.approvals, self.metadata = [], [], {}
        return requests


async def handle_response(
    node: CallToolsNode[Any, Any], state: GraphAgentState, deps: GraphAgentDeps[Any, Any]
) -> ModelRequest | End[FinalResult[Any]]:
    """Handle `node.model_response`: the request that answers it (the node sends it next), or the end of the run."""
    response = node.model_response
    ctx = deps.run_context(state)
    manager = deps.tool_manager
    if manager is None:
        manager = await ToolManager.for_step(ctx, deps.toolset, deps.capability, deps.ports)
        deps.tool_manager = manager
    calls = response.tool_calls
    if not calls:
        return await handle_text(response, state, deps, manager)

    kinds = _by_kind(calls, manager, deps)
    resuming = node.tool_call_results is not None
    resolved: dict[str, DeferredToolResult] = {}
    if node.tool_call_results is not None:
        to_check = [*kinds['function'], *kinds['unknown'], *kinds['external'], *kinds['unapproved']]
        resolved = _check_resumed_results(node.tool_call_results, node.answered_call_ids, to_check)
    metadata = node.tool_call_metadata or {}

    step = _StepResults()
    final = await handle_output_calls(kinds['output'], step.done, state, deps)
    to_run: list[ToolCallPart] = []
    if final is not None and deps.end_strategy == 'early':
        step.done.extend(ToolReturnPart(c.tool_name, TOOL_NOT_EXECUTED, c.tool_call_id) for c in kinds['function'])
    else:
        to_run.extend(kinds['function'])
    to_run.extend(kinds['unknown'])
    if resuming:
        # Deferred calls "run" by taking their results; those a previous run answered are not run again.
        to_run.extend(kinds['external'])
        to_run.extend(kinds['unapproved'])
        to_run = [c for c in to_run if c.tool_call_id not in node.answered_call_ids]
    # A resumed response was capped when it was first handled: its remaining calls are within the cap.
    refused = {} if resuming else _past_cap(calls, kinds, final, deps)
    await _run_function_calls(to_run, resolved, metadata, manager, step, state, deps, refused=refused)
    step.flush(to_run)

    if not resuming:
        deferred_kind = [*kinds['external'], *kinds['unapproved']]
        if final is not None:
            step.done.extend(ToolReturnPart(c.tool_name, TOOL_NOT_EXECUTED, c.tool_call_id) for c in deferred_kind)
        else:
            await _run_function_calls(deferred_kind, {}, {}, manager, step, state, deps, refused=refused)
            step.flush(deferred_kind)

    if final is not None and step.has_deferred:
        # With a final result nothing waits for a human or an external system (a tool that deferred itself with
        # 'exhaustive'): those calls are answered "not executed".
        skipped = step.take_deferred()
        step.done.extend(
            ToolReturnPart(c.tool_name, TOOL_NOT_EXECUTED, c.tool_call_id) for c in [*skipped.calls, *skipped.approvals]
        )
    if step.has_deferred:
        requests = step.take_deferred()
        # Capabilities (`handle_deferred_tool_calls`) answer first; the ports wait for the rest, or can't.
        results = await resolve_deferred_tool_calls(deps.capability, deps.ports, ctx, requests)
        if results is None:
            return _end_with_deferred(requests, step, state, deps)
        deps.ports.deferred_results_applied(requests, results)
        answers = results.to_tool_call_results()
        answered = [c for c in [*requests.approvals, *requests.calls] if c.tool_call_id in answers]
        await _run_function_calls(answered, answers, results.metadata, manager, step, state, deps)
        step.flush(answered)
        remaining = requests.remaining(results) or DeferredToolRequests()
        # Calls left unanswered, or approved and deferred again by the tool, end the run as requests: they are
        # asked about once per step (asking again would get the same answer for ever).
        again = step.take_deferred()
        remaining.calls.extend(again.calls)
        remaining.approvals.extend(again.approvals)
        remaining.metadata.update(again.metadata)
        if remaining.calls or remaining.approvals:
            return _end_with_deferred(remaining, step, state, deps)

    if final is not None:
        state.message_history.append(_stamped(ModelRequest(parts=step.done), state))
        return End(final)
    if node.user_prompt is not None:
        step.done.append(UserPromptPart(node.user_prompt))
    return ModelRequest(parts=step.done)


def _by_kind(
    calls: Sequence[ToolCallPart], manager: ToolManager[Any], deps: GraphAgentDeps[Any, Any]
) -> dict[str, list[ToolCallPart]]:
    """The calls grouped as they are handled: output, function, unknown, external and unapproved tools."""
    kinds: dict[str, list[ToolCallPart]] = {k: [] for k in ('output', 'function', 'unknown', 'external', 'unapproved')}
    for call in calls:
        if call.tool_name in deps.output_schema.tools:
            kinds['output'].append(call)
        elif (tool_def := manager.get_tool_def(call.tool_name)) is None:
            kinds['unknown'].append(call)
        else:
            kinds[tool_def.kind if tool_def.kind in kinds else 'function'].append(call)
    return kinds


def _stamped(request: ModelRequest, state: GraphAgentState) -> ModelRequest:
    request.run_id = state.run_id
    request.conversation_id = state.conversation_id
    request.timestamp = now_utc()
    return request


def _check_resumed_results(
    results: dict[str, DeferredToolResult], answered: frozenset[str], calls: Sequence[ToolCallPart]
) -> dict[str, DeferredToolResult]:
    """The results given for a resumed run's calls, once they are known to answer exactly the calls still open.

    Raises:
        UserError: a result is for a call a previous run already answered, or the results are not for exactly the
            calls still without one.
    """
    for call_id in results:
        if call_id in answered:
            raise UserError(f'Tool call {call_id!r} was already executed and its result cannot be overridden.')
    expected = {c.tool_call_id for c in calls} - answered
    if expected != set(results):
        raise UserError(
            'Tool call results need to be provided for all deferred tool calls. '
            f'Expected: {sorted(expected)}, got: {sorted(results)}'
        )
    return results


def _end_with_deferred(
    requests: DeferredToolRequests,
    step: _StepResults,
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
) -> End[FinalResult[Any]]:
    if not deps.output_schema.allows_deferred_tool_requests and not deps.ports.ends_with_deferred_requests():
        names = ', '.join(sorted({c.tool_name for c in requests.calls + requests.approvals}))
        raise UserError(
            'A deferred tool call was present, but `DeferredToolRequests` is not among output types. '
            'To resolve this, add `DeferredToolRequests` to the list of output types for this agent. '
            f'(Deferred calls: {names}. Running the agent durably also works: the run then waits for the results.)'
        )
    if step.done:
        # Results of the calls that did run are kept, so resuming never runs them again.
        state.message_history.append(_stamped(ModelRequest(parts=step.done), state))
    return End(FinalResult(requests))


def _past_cap(
    calls: Sequence[ToolCallPart],
    kinds: dict[str, list[ToolCallPart]],
    final: FinalResult[Any] | None,
    deps: GraphAgentDeps[Any, Any],
) -> dict[str, RetryPromptPart]:
    """Retry prompts for the calls past the ports' cap (`RunPorts.tool_calls_to_run`), by call id.

    The cap counts the calls that would run one of the agent's tools, in call order: function tools, and tools that
    wait for approval or an external result (unless a final result answers those "not executed"). Output tools and
    unknown names run nothing.
    """
    runs: set[str] = set()
    if final is None or deps.end_strategy != 'early':
        runs.update(c.tool_call_id for c in kinds['function'])
    if final is None:
        runs.update(c.tool_call_id for c in [*kinds['external'], *kinds['unapproved']])
    running = [c for c in calls if c.tool_call_id in runs]
    return past_cap(running, deps.ports.tool_calls_to_run(len(running)))


def _batches(calls: list[ToolCallPart], manager: ToolManager[Any]) -> list[list[ToolCallPart]]:
    """Group calls so that independent ones run together and `sequential` tools run alone, in call order."""
    batches: list[list[ToolCallPart]] = []
    current: list[ToolCallPart] = []
    for call in calls:
        tool_def = manager.get_tool_def(call.tool_name)
        if tool_def is not None and tool_def.sequential:
            if current:
                batches.append(current)
                current = []
            batches.append([call])
        else:
            current.append(call)
    if current:
        batches.append(current)
    return batches


async def _run_function_calls(
    calls: list[ToolCallPart],
    resolved: dict[str, DeferredToolResult],
    metadata: dict[str, dict[str, Any]],
    manager: ToolManager[Any],
    step: _StepResults,
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
    *,
    refused: dict[str, RetryPromptPart] | None = None,
) -> None:
    """Run `calls` in batches (`_batches`), each at most `RunPorts.tool_calls_at_once` at a time, in call order.

    The calls `refused` answers are not run: their retry prompts are their results.
    """
    if refused:
        for call in calls:
            if (part := refused.get(call.tool_call_id)) is not None:
                step.parts[call.tool_call_id] = part
                await deps.emit(FunctionToolResultEvent(part))
        calls = [c for c in calls if c.tool_call_id not in refused]
    to_execute = sum(
        1
        for c in calls
        if (td := manager.get_tool_def(c.tool_name)) is not None
        and (c.tool_call_id in resolved or td.kind == 'function')
        and not isinstance(resolved.get(c.tool_call_id), ToolDenied)
    )
    if to_execute:
        deps.usage_limits.check_before_tool_call(state.usage, to_execute)

    async def handle(c: ToolCallPart) -> None:
        await _handle_call(c, resolved.get(c.tool_call_id), metadata.get(c.tool_call_id), manager, step, state, deps)

    for batch in _batches(calls, manager):
        # One call that fails the run (or the run's cancellation) cancels the calls still running, rather than leave
        # them to finish on their own, and the waiting ones never start.
        await run_in_lanes(batch, deps.ports.tool_calls_at_once(len(batch)), handle)


async def _handle_call(
    call: ToolCallPart,
    result: DeferredToolResult | None,
    metadata: dict[str, Any] | None,
    manager: ToolManager[Any],
    step: _StepResults,
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
) -> None:
    tool_def = manager.get_tool_def(call.tool_name)
    if tool_def is None:
        await deps.emit(FunctionToolCallEvent(call, args_valid=False))
        part = _unknown_tool_retry(call, manager, step, deps)
        step.parts[call.tool_call_id] = part
        await deps.emit(FunctionToolResultEvent(part))
        return
    if result is None:
        if tool_def.kind in ('external', 'unapproved'):
            # Arguments are validated before anyone is asked: a malformed call goes back to the model, not to a human.
            try:
                await _validate_announced(call, manager, deps, step, approved=False, metadata=None)
            except ToolRetryError as retry:
                step.parts[call.tool_call_id] = retry.tool_retry
                await deps.emit(FunctionToolResultEvent(retry.tool_retry))
                return
            step.defer(call, approval=tool_def.kind == 'unapproved', metadata=None)
            return
        await _execute(call, manager, step, state, deps)
        return
    if isinstance(result, ToolApproved):
        target = replace(call, args=result.override_args) if result.override_args is not None else call
        await _execute(target, manager, step, state, deps, approved=True, metadata=metadata)
    elif isinstance(result, ToolDenied):
        part = ToolReturnPart(call.tool_name, result.message, call.tool_call_id, outcome='denied')
        step.parts[call.tool_call_id] = part
        await deps.emit(FunctionToolResultEvent(part))
    elif isinstance(result, ToolReturn):
        _record_return(call, result, step)
        await deps.emit(FunctionToolResultEvent(step.parts[call.tool_call_id]))  # pyright: ignore[reportArgumentType]
    elif isinstance(result, ToolFailed):
        # The external call is done and failed: the model reads why, and no retry is counted.
        part = ToolReturnPart(call.tool_name, result.message, call.tool_call_id, outcome='failed')
        step.parts[call.tool_call_id] = part
        await deps.emit(FunctionToolResultEvent(part))
    else:
        message = result.message if isinstance(result, ModelRetry) else result.content
        part = RetryPromptPart(message, tool_name=call.tool_name, tool_call_id=call.tool_call_id)
        step.parts[call.tool_call_id] = part
        await deps.emit(FunctionToolResultEvent(part))


def _unknown_tool_retry(
    call: ToolCallPart, manager: ToolManager[Any], step: _StepResults, deps: GraphAgentDeps[Any, Any]
) -> RetryPromptPart:
    """The retry prompt for a call to a tool that does not exist, counted against that name's own retries.

    The budget is the agent's default tool retries, as for a tool of that name; several calls to it in one response
    cost one retry.

    Raises:
        ToolRetriesExhausted: the name was called more often than the budget allows.
    """
    # The model may call output tools as well, so the list of what it can call names them too.
    names = sorted({*manager.tools, *deps.output_schema.tools})
    available = f'Available tools: {", ".join(map(repr, names))}' if names else 'No tools available.'
    part = RetryPromptPart(
        f'Unknown tool name: {call.tool_name!r}. {available}', tool_name=call.tool_name, tool_call_id=call.tool_call_id
    )
    retries = manager.ctx.retries
    if call.tool_name not in step.unknown_failed:
        budget = deps.agent._default_retries  # pyright: ignore[reportPrivateUsage]
        used = retries.get(call.tool_name, 0)
        if used >= budget:
            raise ToolRetriesExhausted(call.tool_name, budget, part)
        retries[call.tool_name] = used + 1
        step.unknown_failed.add(call.tool_name)
    return part


def _record_return(call: ToolCallPart, value: Any, step: _StepResults) -> None:
    if isinstance(value, ToolReturn):
        returned = cast('ToolReturn[Any]', value)
        step.parts[call.tool_call_id] = _return_part(call, returned.return_value, metadata=returned.metadata)
        if value.content:
            step.extra.append(UserPromptPart(value.content))
    elif isinstance(value, list) and any(isinstance(item, ToolReturn) for item in cast('list[Any]', value)):
        # Each `ToolReturn` answers one call, so a list holding them has no single result to send.
        raise UserError(
            f'The return value of tool {call.tool_name!r} contains invalid nested `ToolReturn` objects. '
            '`ToolReturn` should be used directly.'
        )
    else:
        step.parts[call.tool_call_id] = _return_part(call, value)


def _return_part(call: ToolCallPart, content: Any, *, metadata: Any = None) -> ToolReturnPart:
    """The return part answering `call`: the typed `LoadCapabilityReturnPart` for a `load_capability` call."""
    if call.tool_kind == 'capability-load':
        return LoadCapabilityReturnPart(content=content, tool_call_id=call.tool_call_id, metadata=metadata)
    return ToolReturnPart(call.tool_name, content, call.tool_call_id, metadata=metadata)


async def _validate_announced(
    call: ToolCallPart,
    manager: ToolManager[Any],
    deps: GraphAgentDeps[Any, Any],
    step: _StepResults,
    *,
    approved: bool,
    metadata: Any,
) -> dict[str, Any]:
    # The call event is sent once validation has decided, so it can say whether the arguments were valid.
    # A deferred call was announced when it was first validated; running it once resolved is the same call.
    announce = call.tool_call_id not in step.announced
    step.announced.add(call.tool_call_id)
    try:
        args = await manager.validate_call(call, approved=approved, metadata=metadata)
    except ToolRetriesExhausted:
        if announce:
            await deps.emit(FunctionToolCallEvent(call, args_valid=False))
        # Arguments cut off by the token limit never validate: say so rather than "exceeded max retries".
        check_incomplete_tool_call(manager.ctx.messages, deps.last_max_tokens)
        raise
    except Exception:
        if announce:
            await deps.emit(FunctionToolCallEvent(call, args_valid=False))
        raise
    if announce:
        await deps.emit(FunctionToolCallEvent(call, args_valid=True))
    return args


async def _execute(
    call: ToolCallPart,
    manager: ToolManager[Any],
    step: _StepResults,
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
    *,
    approved: bool = False,
    metadata: Any = None,
) -> None:
    try:
        args = await _validate_announced(call, manager, deps, step, approved=approved, metadata=metadata)
        value = await manager.execute_call(call, args, approved=approved, metadata=metadata)
    except ToolRetryError as retry:
        step.parts[call.tool_call_id] = retry.tool_retry
        await deps.emit(FunctionToolResultEvent(retry.tool_retry))
        return
    except ApprovalRequired as exc:
        step.defer(call, approval=True, metadata=exc.metadata)
        return
    except CallDeferred as exc:
        step.defer(call, approval=False, metadata=exc.metadata)
        return
    state.usage.tool_calls += 1
    _record_return(call, value, step)
    await deps.emit(FunctionToolResultEvent(step.parts[call.tool_call_id]))  # pyright: ignore[reportArgumentType]
