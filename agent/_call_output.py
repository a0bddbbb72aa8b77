"""Turning a model response into the run's output: output tool calls (per `end_strategy`) and text output."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pydantic

from ._agent_graph_state import GraphAgentDeps, GraphAgentState, check_output_retries
from ._content import BinaryImage
from ._events import OutputToolCallEvent, OutputToolResultEvent
from ._output_pipeline import process_image_output, process_none_output, process_text_output, process_tool_output
from ._parts import (
    FilePart,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    RetryPromptPart,
    ThinkingPart,
    ToolReturnPart,
)
from ._unusable_response import check_incomplete_tool_call, check_unusable_response, no_output_message, recover_text
from .exceptions import ModelRetry, UnexpectedModelBehavior
from .graph import End
from .result import FinalResult

if TYPE_CHECKING:
    from ._parts import ToolCallPart
    from ._run_context import RunContext
    from ._tool_manager import ToolManager

__all__ = (
    'FINAL_RESULT_PROCESSED',
    'OUTPUT_NOT_USED',
    'handle_output_calls',
    'handle_text',
    'output_context',
    'tool_budget',
)

OUTPUT_NOT_USED = 'Output tool not used - a final result was already processed.'
OUTPUT_INVALID = 'Output tool not used - output failed validation.'
OUTPUT_FAILED = 'Output tool not used - output function execution failed.'
FINAL_RESULT_PROCESSED = 'Final result processed.'


async def handle_output_calls(
    calls: list[ToolCallPart],
    parts: list[ModelRequestPart],
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
) -> FinalResult[Any] | None:
    """Process the response's output tool calls in order, appending one part per call; the first valid one wins.

    With `end_strategy='exhaustive'` the later output calls are processed too (their output is dropped, and one that
    fails no longer costs a retry: it is answered "not used"); otherwise they are answered "not used" without being
    looked at.
    """
    final: FinalResult[Any] | None = None
    for call in calls:
        if final is not None and deps.end_strategy != 'exhaustive':
            parts.append(ToolReturnPart(call.tool_name, OUTPUT_NOT_USED, call.tool_call_id))
            continue
        await deps.emit(OutputToolCallEvent(call))
        tool = deps.output_schema.tools[call.tool_name]
        budget = tool_budget(deps, tool.max_retries)
        # The output function sees the tool's own retries; the output validators see the run's (as on the text path).
        ctx = output_context(
            state, deps, tool_call=call, max_retries=budget, retry=state.tool_retries.get(call.tool_name, 0)
        )
        validator_ctx = output_context(state, deps, tool_call=call)
        part: ModelRequestPart
        try:
            output = await process_tool_output(
                tool, call, deps.output_schema, deps.capability, ctx, deps.output_validators, validator_ctx
            )
        except pydantic.ValidationError as exc:
            if final is not None:
                part = ToolReturnPart(call.tool_name, OUTPUT_INVALID, call.tool_call_id)
            else:
                errors = exc.errors(include_url=False, include_context=False)
                part = RetryPromptPart(errors, tool_name=call.tool_name, tool_call_id=call.tool_call_id)
                _spend_output_tool_retry(state, deps, call.tool_name, budget, part.model_response())
        except ModelRetry as exc:
            if final is not None and state.tool_retries.get(call.tool_name, 0) >= budget:
                # No retry left, but the run has its output: the call is answered rather than failing the run.
                part = ToolReturnPart(call.tool_name, OUTPUT_FAILED, call.tool_call_id)
            else:
                part = RetryPromptPart(exc.message, tool_name=call.tool_name, tool_call_id=call.tool_call_id)
                _spend_output_tool_retry(state, deps, call.tool_name, budget, exc.message)
        else:
            if final is None:
                final = FinalResult(output, call.tool_name, call.tool_call_id)
            part = ToolReturnPart(call.tool_name, FINAL_RESULT_PROCESSED, call.tool_call_id)
        parts.append(part)
        await deps.emit(OutputToolResultEvent(part))
    return final


def _spend_output_tool_retry(
    state: GraphAgentState, deps: GraphAgentDeps[Any, Any], tool_name: str, budget: int, error: str
) -> None:
    """Count a failed output tool call against that tool's own budget, raising once it is spent.

    Each output tool keeps its own count (in `state.tool_retries`, next to the function tools'), so a tool with a
    larger `max_retries` is not cut short by another's failures; the run's output retry count goes up too, for
    the output validators' `ctx.retry`.
    """
    used = state.tool_retries.get(tool_name, 0)
    if used >= budget:
        # Output-tool arguments cut off by the token limit never validate: say so rather than "exceeded retries".
        check_incomplete_tool_call(state.message_history, deps.last_max_tokens)
        raise UnexpectedModelBehavior(f'Exceeded maximum output retries ({budget})', body=error)
    state.tool_retries[tool_name] = used + 1
    state.retries += 1


def tool_budget(deps: GraphAgentDeps[Any, Any], max_retries: int | None) -> int:
    """The output retries an output tool may use: its own budget, or the agent's."""
    return deps.max_output_retries if max_retries is None else max_retries


def output_context(
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
    *,
    tool_call: ToolCallPart | None = None,
    max_retries: int | None = None,
    retry: int | None = None,
) -> RunContext[Any]:
    """The context the output hooks, the output function and the output validators see.

    By default it carries the run's output retries and budget; an output tool's own are passed in for its function.
    """
    return deps.run_context(
        state,
        tool_name=tool_call.tool_name if tool_call else None,
        tool_call_id=tool_call.tool_call_id if tool_call else None,
        retry=state.retries if retry is None else retry,
        max_retries=deps.max_output_retries if max_retries is None else max_retries,
    )


async def handle_text(
    response: ModelResponse, state: GraphAgentState, deps: GraphAgentDeps[Any, Any], manager: ToolManager[Any]
) -> ModelRequest | End[FinalResult[Any]]:
    """Handle a response without tool calls: its text is the output, or the model is asked again."""
    schema = deps.output_schema
    if all(isinstance(p, ThinkingPart) for p in response.parts):
        # Nothing to act on (see `_unusable_response` for the order of these rules).
        check_unusable_response(response, deps.last_max_tokens)
        if not response.parts and schema.allows_none:
            # `None` is among the output types: saying nothing is a valid answer, not a reason to ask again.
            return await _none_output(state, deps)
        if schema.allows_text and (recovered := recover_text(state.message_history)) is not None:
            try:
                return End(FinalResult(await _text_output(recovered, state, deps)))
            except (pydantic.ValidationError, ModelRetry):
                pass  # the earlier text is no answer either: handled as if there were none
        if not response.parts:
            check_output_retries(state, deps, 'The model returned an empty response.')
            return ModelRequest(parts=[])
    image = _image_in(response) if schema.allows_image else None
    if image is not None:
        try:
            output = await process_image_output(
                image, schema, deps.capability, output_context(state, deps), deps.output_validators
            )
        except ModelRetry as exc:
            check_output_retries(state, deps, exc.message)
            return ModelRequest(parts=[RetryPromptPart(exc.message)])
        return End(FinalResult(output))
    text = response.text
    if text is not None and schema.allows_text:
        try:
            return End(FinalResult(await _text_output(text, state, deps)))
        except pydantic.ValidationError as exc:
            part = RetryPromptPart(exc.errors(include_url=False, include_context=False))
            check_output_retries(state, deps, part.model_response())
            return ModelRequest(parts=[part])
        except ModelRetry as exc:
            check_output_retries(state, deps, exc.message)
            return ModelRequest(parts=[RetryPromptPart(exc.message)])
    message = no_output_message(schema, has_function_tools=bool(manager.tools))
    check_output_retries(state, deps, message)
    return ModelRequest(parts=[RetryPromptPart(message)])


def _image_in(response: ModelResponse) -> BinaryImage | None:
    """The first image the response holds as a file part, which is the output when images are."""
    for part in response.parts:
        if isinstance(part, FilePart) and isinstance(part.content, BinaryImage):
            return part.content
    return None


async def _none_output(state: GraphAgentState, deps: GraphAgentDeps[Any, Any]) -> ModelRequest | End[FinalResult[Any]]:
    ctx = output_context(state, deps)
    try:
        return End(
            FinalResult(await process_none_output(deps.output_schema, deps.capability, ctx, deps.output_validators))
        )
    except ModelRetry as exc:
        check_output_retries(state, deps, exc.message)
        return ModelRequest(parts=[RetryPromptPart(exc.message)])


async def _text_output(text: str, state: GraphAgentState, deps: GraphAgentDeps[Any, Any]) -> Any:
    ctx = output_context(state, deps)
    return await process_text_output(text, deps.output_schema, deps.capability, ctx, deps.output_validators)
