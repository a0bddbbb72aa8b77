"""Handling a model response: output tools, function tools (parallel or sequential), deferred calls, text output."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pydantic

from ._agent_graph import CallToolsNode, GraphAgentDeps, GraphAgentState, ModelRequestNode, check_output_retries
from ._content import ToolReturn
from ._deferred import DeferredToolRequests, DeferredToolResult, ToolApproved, ToolDenied
from ._env import now_utc
from ._events import FunctionToolCallEvent, FunctionToolResultEvent, OutputToolCallEvent, OutputToolResultEvent
from ._output_pipeline import process_text_output, process_tool_output
from ._parts import (
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    RetryPromptPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from ._run_context import RunContext
from ._tool_manager import ToolManager
from ._unusable_response import check_incomplete_tool_call, check_unusable_response, no_output_message, recover_text
from .exceptions import (
    ApprovalRequired,
    CallDeferred,
    ModelRetry,
    ToolRetriesExhausted,
    ToolRetryError,
    UserError,
)
from .graph import End
from .result import FinalResult

__all__ = ('handle_response',)

OUTPUT_NOT_USED = 'Output tool not used - a final result was already processed.'
TOOL_NOT_EXECUTED = 'Tool not executed - a final result was already processed.'
FINAL_RESULT_PROCESSED = 'Final result processed.'


@dataclass
class _StepResults:
    """What handling the tool calls of one response produced."""

    parts: dict[str, ModelRequestPart] = field(default_factory=dict[str, ModelRequestPart])
    extra: list[ModelRequestPart] = field(default_factory=list[ModelRequestPart])
    deferred_calls: list[ToolCallPart] = field(default_factory=list[ToolCallPart])
    approvals: list[ToolCallPart] = field(default_factory=list[ToolCallPart])
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    announced: set[str] = field(default_factory=set[str])
    """Calls whose `FunctionToolCallEvent` was sent (a deferred call is validated, then run once resolved)."""

    def defer(self, call: ToolCallPart, *, approval: bool, metadata: dict[str, Any] | None) -> None:
        (self.approvals if approval else self.deferred_calls).append(call)
        if metadata:
            self.metadata[call.tool_call_id] = metadata

    @property
    def has_deferred(self) -> bool:
        return bool(self.deferred_calls or self.approvals)

    def ordered_parts(self, calls: Sequence[ToolCallPart]) -> list[ModelRequestPart]:
        ordered = [self.parts[c.tool_call_id] for c in calls if c.tool_call_id in self.parts]
        return [*ordered, *self.extra]


async def handle_response(
    node: CallToolsNode[Any, Any], state: GraphAgentState, deps: GraphAgentDeps[Any, Any]
) -> ModelRequestNode[Any, Any] | End[FinalResult[Any]]:
    """Handle `node.model_response` and decide the next node."""
    response = node.model_response
    ctx = deps.run_context(state)
    manager = deps.tool_manager
    if manager is None:
        manager = await ToolManager.for_step(ctx, deps.toolset, deps.capability, deps.ports)
        deps.tool_manager = manager
    calls = response.tool_calls
    if not calls:
        return await _handle_text(response, state, deps, manager)

    step = _StepResults()
    known = {p.tool_call_id: p for p in node.resumed_parts if isinstance(p, ToolReturnPart | RetryPromptPart)}
    step.parts.update(known)
    step.extra.extend(p for p in node.resumed_parts if not isinstance(p, ToolReturnPart | RetryPromptPart))
    resolved: dict[str, DeferredToolResult] = {}
    metadata: dict[str, dict[str, Any]] = {}
    if deps.deferred_tool_results is not None:
        resolved = deps.deferred_tool_results.to_tool_call_results()
        metadata = deps.deferred_tool_results.metadata
        _check_resolved_ids(resolved, calls, known)
        deps.deferred_tool_results = None

    pending = [c for c in calls if c.tool_call_id not in step.parts]
    final = await _handle_output_calls(
        [c for c in pending if c.tool_name in deps.output_schema.tools], step, state, deps
    )
    function_calls = [c for c in pending if c.tool_name not in deps.output_schema.tools]
    if final is not None:
        # With a final result, nothing waits for a human or an external system: those calls are answered
        # "not executed" (with 'exhaustive', the other function tools still run).
        skipped = function_calls
        if deps.end_strategy != 'early':
            skipped = [c for c in function_calls if _is_deferred_kind(c, manager) and c.tool_call_id not in resolved]
            runnable = [c for c in function_calls if c not in skipped]
            await _run_function_calls(runnable, resolved, metadata, manager, step, state, deps)
            skipped += [*step.deferred_calls, *step.approvals]
            step.deferred_calls, step.approvals, step.metadata = [], [], {}
        for call in skipped:
            step.parts[call.tool_call_id] = ToolReturnPart(call.tool_name, TOOL_NOT_EXECUTED, call.tool_call_id)
    else:
        await _run_function_calls(function_calls, resolved, metadata, manager, step, state, deps)

    if step.has_deferred:
        requests = _deferred_requests(step)
        from .capabilities._deferred_handler import resolve_deferred_tool_calls

        # Capabilities (`handle_deferred_tool_calls`) answer first; the ports wait for the rest, or can't.
        results = await resolve_deferred_tool_calls(deps.capability, deps.ports, ctx, requests)
        if results is None:
            return _end_with_deferred(requests, step, calls, state, deps)
        waiting = step.deferred_calls + step.approvals
        step.deferred_calls, step.approvals, step.metadata = [], [], {}
        await _run_function_calls(waiting, results.to_tool_call_results(), results.metadata, manager, step, state, deps)
        if step.has_deferred:
            # Calls left unanswered, or approved and deferred again by the tool: they are asked about once per
            # step (asking again would get the same answer for ever), so they end the run as requests.
            return _end_with_deferred(_deferred_requests(step), step, calls, state, deps)

    parts = step.ordered_parts(calls)
    if final is not None:
        state.message_history.append(_stamped(ModelRequest(parts=parts), state))
        return End(final)
    return ModelRequestNode(ModelRequest(parts=parts))


def _deferred_requests(step: _StepResults) -> DeferredToolRequests:
    return DeferredToolRequests(calls=step.deferred_calls, approvals=step.approvals, metadata=step.metadata)


def _is_deferred_kind(call: ToolCallPart, manager: ToolManager[Any]) -> bool:
    tool_def = manager.get_tool_def(call.tool_name)
    return tool_def is not None and tool_def.kind in ('external', 'unapproved')


def _stamped(request: ModelRequest, state: GraphAgentState) -> ModelRequest:
    request.run_id = state.run_id
    request.conversation_id = state.conversation_id
    request.timestamp = now_utc()
    return request


def _check_resolved_ids(
    resolved: dict[str, DeferredToolResult], calls: Sequence[ToolCallPart], known: Mapping[str, ModelRequestPart]
) -> None:
    call_ids = {c.tool_call_id for c in calls}
    unknown = sorted(set(resolved) - call_ids)
    if unknown:
        raise UserError(
            f'deferred_tool_results has tool call ids {unknown} that are not among the pending tool calls '
            f'{sorted(call_ids - set(known))}; check the ids against DeferredToolRequests.'
        )
    already = sorted(set(resolved) & set(known))
    if already:
        raise UserError(f'deferred_tool_results has results for tool calls {already} that already returned.')


def _end_with_deferred(
    requests: DeferredToolRequests,
    step: _StepResults,
    calls: Sequence[ToolCallPart],
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
) -> End[FinalResult[Any]]:
    if not deps.output_schema.allows_deferred_tool_requests and not deps.ports.ends_with_deferred_requests():
        names = ', '.join(sorted({c.tool_name for c in requests.calls + requests.approvals}))
        raise UserError(
            f'The model called tools that need approval or external execution ({names}), but DeferredToolRequests '
            "is not among the agent's output types. Add it, e.g. output_type=[str, DeferredToolRequests], "
            'or run the agent durably so the run waits for the results.'
        )
    done = step.ordered_parts(calls)
    if done:
        # Results of the calls that did run are kept, so resuming never runs them again.
        state.message_history.append(_stamped(ModelRequest(parts=done), state))
    return End(FinalResult(requests))


async def _handle_output_calls(
    calls: list[ToolCallPart], step: _StepResults, state: GraphAgentState, deps: GraphAgentDeps[Any, Any]
) -> FinalResult[Any] | None:
    final: FinalResult[Any] | None = None
    for call in calls:
        if final is not None:
            step.parts[call.tool_call_id] = ToolReturnPart(call.tool_name, OUTPUT_NOT_USED, call.tool_call_id)
            continue
        await deps.emit(OutputToolCallEvent(call))
        tool = deps.output_schema.tools[call.tool_name]
        ctx = _output_context(state, deps, tool_call=call, max_retries=tool.max_retries)
        try:
            output = await process_tool_output(
                tool, call, deps.output_schema, deps.capability, ctx, deps.output_validators
            )
        except pydantic.ValidationError as exc:
            errors = exc.errors(include_url=False, include_context=False)
            part = RetryPromptPart(errors, tool_name=call.tool_name, tool_call_id=call.tool_call_id)
            check_output_retries(state, deps, part.model_response(), max_retries=tool.max_retries)
        except ModelRetry as exc:
            part = RetryPromptPart(exc.message, tool_name=call.tool_name, tool_call_id=call.tool_call_id)
            check_output_retries(state, deps, exc.message, max_retries=tool.max_retries)
        else:
            final = FinalResult(output, call.tool_name, call.tool_call_id)
            part = ToolReturnPart(call.tool_name, FINAL_RESULT_PROCESSED, call.tool_call_id)
        step.parts[call.tool_call_id] = part
        await deps.emit(OutputToolResultEvent(part))
    return final


def _output_context(
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
    *,
    tool_call: ToolCallPart | None = None,
    max_retries: int | None = None,
) -> RunContext[Any]:
    """The context the output hooks, the output function and the output validators see."""
    return deps.run_context(
        state,
        tool_name=tool_call.tool_name if tool_call else None,
        tool_call_id=tool_call.tool_call_id if tool_call else None,
        retry=state.retries,
        max_retries=deps.max_output_retries if max_retries is None else max_retries,
    )


async def _handle_text(
    response: ModelResponse, state: GraphAgentState, deps: GraphAgentDeps[Any, Any], manager: ToolManager[Any]
) -> ModelRequestNode[Any, Any] | End[FinalResult[Any]]:
    schema = deps.output_schema
    if all(isinstance(p, ThinkingPart) for p in response.parts):
        # Nothing to act on (see `_unusable_response` for the order of these rules).
        check_unusable_response(response, deps.last_max_tokens)
        if schema.allows_text and (recovered := recover_text(state.message_history)) is not None:
            try:
                return End(FinalResult(await _text_output(recovered, state, deps)))
            except (pydantic.ValidationError, ModelRetry):
                pass  # the earlier text is no answer either: handled as if there were none
        if not response.parts:
            check_output_retries(state, deps, 'The model returned an empty response.')
            return ModelRequestNode(ModelRequest(parts=[]))
    text = response.text
    if text is not None and schema.allows_text:
        try:
            return End(FinalResult(await _text_output(text, state, deps)))
        except pydantic.ValidationError as exc:
            part = RetryPromptPart(exc.errors(include_url=False, include_context=False))
            check_output_retries(state, deps, part.model_response())
            return ModelRequestNode(ModelRequest(parts=[part]))
        except ModelRetry as exc:
            check_output_retries(state, deps, exc.message)
            return ModelRequestNode(ModelRequest(parts=[RetryPromptPart(exc.message)]))
    message = no_output_message(schema, has_function_tools=bool(manager.tools))
    check_output_retries(state, deps, message)
    return ModelRequestNode(ModelRequest(parts=[RetryPromptPart(message)]))


async def _text_output(text: str, state: GraphAgentState, deps: GraphAgentDeps[Any, Any]) -> Any:
    ctx = _output_context(state, deps)
    return await process_text_output(text, deps.output_schema, deps.capability, ctx, deps.output_validators)


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
) -> None:
    to_execute = sum(
        1
        for c in calls
        if (td := manager.get_tool_def(c.tool_name)) is not None
        and (c.tool_call_id in resolved or td.kind == 'function')
        and not isinstance(resolved.get(c.tool_call_id), ToolDenied)
    )
    if to_execute:
        deps.usage_limits.check_before_tool_call(state.usage, to_execute)
    for batch in _batches(calls, manager):
        tasks = [
            asyncio.ensure_future(
                _handle_call(c, resolved.get(c.tool_call_id), metadata.get(c.tool_call_id), manager, step, state, deps)
            )
            for c in batch
        ]
        try:
            await asyncio.gather(*tasks)
        except GeneratorExit:
            raise  # the coroutine is being closed (a durable run dropped from a worker's cache): it cannot await
        except BaseException:
            # One call failed the run (or the run was cancelled): the calls still running are cancelled rather than
            # left to finish on their own. gather() rather than wait(): a workflow must not iterate over sets.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise


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
        await deps.emit(FunctionToolCallEvent(call))
        part = manager.unknown_tool_prompt(call)
        check_output_retries(state, deps, part.model_response())
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
    else:
        message = result.message if isinstance(result, ModelRetry) else result.content
        part = RetryPromptPart(message, tool_name=call.tool_name, tool_call_id=call.tool_call_id)
        step.parts[call.tool_call_id] = part
        await deps.emit(FunctionToolResultEvent(part))


def _record_return(call: ToolCallPart, value: Any, step: _StepResults) -> None:
    if isinstance(value, ToolReturn):
        step.parts[call.tool_call_id] = ToolReturnPart(
            call.tool_name, value.return_value, call.tool_call_id, metadata=value.metadata
        )
        if value.content:
            step.extra.append(UserPromptPart(value.content))
    else:
        step.parts[call.tool_call_id] = ToolReturnPart(call.tool_name, value, call.tool_call_id)


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
